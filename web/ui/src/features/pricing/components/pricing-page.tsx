import { useSignals } from "@preact/signals-react/runtime";
import { Check } from "../../../components/lucide";
import { Link } from "react-router";
import { Alert } from "../../../components/form";
import { Spinner } from "../../../components/loading";
import { paths, type PlanId } from "../../../config/paths";
import { user } from "../../../lib/auth";
import { lapsedPlanRule, usePlans, type Plan } from "../../../lib/plans";

// The plan most people pick; its card stands out.
const recommended: PlanId = "pro";

// Who each plan is for, in a line under its name; what it includes is the server's perks.
const taglines: Record<PlanId, string> = {
  starter: "One letter for one person.",
  pro: "Every letter, for everyone you love.",
  business: "Custom features and your own integrations.",
};

/** Signed-out visitors sign up first and come back to the purchase. */
function chooseHref(planId: PlanId, signedIn: boolean) {
  const purchase = paths.purchase.href(planId);
  return signedIn ? purchase : paths.auth.href("signup", purchase);
}

function PlanCard({ plan, signedIn }: { plan: Plan; signedIn: boolean }) {
  const agreed = plan.price === "-";
  return (
    <article className={plan.id === recommended ? "plan recommended" : "plan"}>
      <header>
        <h2>
          {plan.name}
          {plan.id === recommended && <mark>Most popular</mark>}
        </h2>
        <p className="plan-tagline">{taglines[plan.id]}</p>
        <p className="price">
          {agreed ? (
            "-"
          ) : (
            <>
              €{plan.price}
              <small>/month</small>
            </>
          )}
        </p>
        {agreed && !plan.purchasable && (
          <p className="price-note">
            Priced with you. <Link to={paths.contact.href()}>Contact us</Link>
          </p>
        )}
      </header>
      <ul className="perks">
        {plan.perks.map((perk) => (
          <li key={perk}>
            <Check size={18} aria-hidden="true" />
            {perk}
          </li>
        ))}
      </ul>
      <footer>
        <Link
          to={chooseHref(plan.id, signedIn)}
          role="button"
          className={plan.id === recommended ? undefined : "outline"}
          aria-label={`Choose ${plan.name}`}
        >
          Choose
        </Link>
      </footer>
    </article>
  );
}

/** The plans as the server sells them (GET /api/plans), each with its way to choose it. */
export function PricingPage() {
  useSignals();
  const signedIn = Boolean(user.value);
  const { plans, error } = usePlans();

  return (
    <section>
      <hgroup className="section-title">
        <h1>Pricing</h1>
        <p>Choose the plan that makes sense for you.</p>
      </hgroup>
      {error && <Alert>{error}</Alert>}
      {plans === undefined ? (
        !error && <Spinner label="Loading the plans" />
      ) : (
        <>
          <div className="cards plans">
            {plans.map((plan) => (
              <PlanCard key={plan.id} plan={plan} signedIn={signedIn} />
            ))}
          </div>
          <p className="plans-note">{lapsedPlanRule}</p>
        </>
      )}
    </section>
  );
}

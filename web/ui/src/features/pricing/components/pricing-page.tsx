import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "react-router";
import { paths } from "../../../config/paths";
import { plans, type PlanId } from "../../../config/plans";
import { user } from "../../../lib/auth";

// The plan most people pick; its card stands out.
const recommended: PlanId = "pro";

/** Signed-out visitors sign up first and come back to the purchase. */
function chooseHref(planId: PlanId, signedIn: boolean) {
  const purchase = paths.purchase.href(planId);
  return signedIn ? purchase : paths.auth.href("signup", purchase);
}

export function PricingPage() {
  useSignals();
  const signedIn = Boolean(user.value);

  return (
    <section>
      <hgroup className="section-title">
        <h1>Pricing</h1>
        <p>Choose the plan that makes sense for you.</p>
      </hgroup>
      <div className="cards plans">
        {plans.map((plan) => (
          <article key={plan.id} className={plan.id === recommended ? "plan recommended" : "plan"}>
            <header>
              <h2>
                {plan.name}
                {plan.id === recommended && <mark>Most popular</mark>}
              </h2>
              <p className="price">
                {plan.price === null ? (
                  "-"
                ) : (
                  <>
                    €{plan.price}
                    <small>/month</small>
                  </>
                )}
              </p>
              {plan.price === null && (
                <p className="price-note">
                  Priced with you. <Link to={paths.contact.href()}>Contact us</Link>
                </p>
              )}
            </header>
            <ul>
              {plan.perks.map((perk) => (
                <li key={perk}>{perk}</li>
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
        ))}
      </div>
    </section>
  );
}

import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { Alert, errorMessage } from "../../../components/form";
import { Spinner } from "../../../components/loading";
import { paths } from "../../../config/paths";
import type { PlanId } from "../../../config/paths";
import { user } from "../../../lib/auth";
import { getPlans } from "../../../lib/plans";
import { createCheckoutSession } from "../api/checkout";

const absolute = (path: string) => new URL(path, window.location.origin).href;

/**
 * Starts a purchase (SPEC.md section 4), in order: an active plan is managed in the
 * billing settings, the free plan needs nothing, the business plan is agreed through the
 * contact page (unless the server sells it), and any other plan goes to the card checkout:
 * the browser goes to the address the server returns (no payment script runs here).
 */
export function PurchasePage({ plan }: { plan: PlanId }) {
  useSignals();
  const navigate = useNavigate();
  const account = user.value;
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (!account) return;
    if (account.planIsActive) {
      void navigate(paths.settings.href("billing"), { replace: true });
      return;
    }
    if (plan === "starter") {
      void navigate(paths.dashboard.href(), { replace: true });
      return;
    }
    let live = true;
    const checkout = async () => {
      // Business is arranged through the contact page, unless checkout sells it here.
      if (plan === "business" && !(await getPlans()).some((p) => p.id === plan && p.purchasable)) {
        if (live) void navigate(paths.contact.href(), { replace: true });
        return;
      }
      const { url } = await createCheckoutSession(plan, absolute(`${paths.dashboard.href()}?paid=true`), absolute(paths.pricing.href()));
      if (live) window.location.assign(url);
    };
    checkout().catch((caught: unknown) => live && setError(errorMessage(caught)));
    return () => {
      live = false;
    };
  }, [account, plan, navigate]);

  return (
    <section className="narrow">
      <h1>Purchase</h1>
      {error ? <Alert>{error}</Alert> : <Spinner label="Starting the purchase" />}
    </section>
  );
}

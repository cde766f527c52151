import { useEffect, useState } from "react";
import type { PlanId } from "../config/paths";
import { api } from "./api-client";

/** A plan of the pricing screen as the server sells it: GET /api/plans is their one source. */
export type Plan = {
  id: PlanId;
  name: string;
  // EUR per month, "-" where it is agreed per customer.
  price: string;
  perks: string[];
  // Checkout sells it here; otherwise a paid plan is arranged through the contact page.
  purchasable: boolean;
};

export const getPlans = () => api<Plan[]>("plans", { bearer: false });

// The element beside a prerendered pricing page that holds the plans it shows (scripts/prerender.mjs).
export const plansBlockId = "prerendered-plans";

// The plans the build prerenders the pricing page with (src/entry-server.tsx sets them).
let prerenderPlans: Plan[] | undefined;
export function setPrerenderPlans(plans: Plan[] | undefined) {
  prerenderPlans = plans;
}

/**
 * The plans known without asking: those the build prerendered the page with, which the server
 * sends only where they are its own (web/prerender.go), so the page hydrates with them and
 * asks nothing. None elsewhere.
 */
function knownPlans(): Plan[] | undefined {
  if (typeof document === "undefined") return prerenderPlans;
  const block = document.getElementById(plansBlockId);
  if (!block?.textContent) return undefined;
  try {
    return JSON.parse(block.textContent) as Plan[];
  } catch {
    return undefined;
  }
}

/** The plans, known or read when the component mounts; `error` says why they could not be. */
export function usePlans() {
  const [plans, setPlans] = useState<Plan[] | undefined>(knownPlans);
  const [error, setError] = useState<string>();
  const known = plans !== undefined;
  useEffect(() => {
    if (known) return;
    let live = true;
    getPlans().then(
      (list) => live && setPlans(list),
      (caught: Error) => live && setError(caught.message),
    );
    return () => {
      live = false;
    };
  }, [known]);
  return { plans, error };
}

/** What a paid plan that stops being active changes, as pricing and the dashboard say it. */
export const lapsedPlanRule =
  "When a paid plan lapses, your scheduled messages are still delivered and you can still edit and postpone them; only adding messages beyond the free plan's one stops.";

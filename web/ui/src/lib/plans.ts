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

/** The plans, read when the component mounts; `error` says why they could not be. */
export function usePlans() {
  const [plans, setPlans] = useState<Plan[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    getPlans().then(
      (list) => live && setPlans(list),
      (caught: Error) => live && setError(caught.message),
    );
    return () => {
      live = false;
    };
  }, []);
  return { plans, error };
}

/** What a paid plan that stops being active changes, as pricing and the dashboard say it. */
export const lapsedPlanRule =
  "When a paid plan lapses, your scheduled messages are still delivered and you can still edit and postpone them; only adding messages beyond the free plan's one stops.";

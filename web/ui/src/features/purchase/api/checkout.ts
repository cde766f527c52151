import { api } from "../../../lib/api-client";
import type { PlanId } from "../../../config/paths";

/** Starts the card provider's checkout for a plan; the browser goes to url. */
export const createCheckoutSession = (planId: PlanId, successUrl: string, cancelUrl: string) =>
  api<{ id: string; url: string }>("stripe-create-checkout-session", {
    method: "POST",
    body: { planId, successUrl, cancelUrl },
  });

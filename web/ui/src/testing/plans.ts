import type { Plan } from "../lib/plans";
import { ok } from "./api-mock";

/** The plans as GET /api/plans answers with Pro on sale (purchasable: Stripe configured with its price). */
export const testPlans = (overrides: Partial<Record<Plan["id"], Partial<Plan>>> = {}): Plan[] => [
  { id: "starter", name: "Free", price: "0", perks: ["1 message", "1 recipient", "Edit or postpone your message"], purchasable: false, ...overrides.starter },
  {
    id: "pro",
    name: "Pro",
    price: "10",
    perks: ["All Free perks", "Unlimited messages", "Up to 10 recipients per message", "Sealed messages only your recipients can open"],
    purchasable: true,
    ...overrides.pro,
  },
  {
    id: "business",
    name: "Business",
    price: "-",
    perks: ["All Pro perks", "Custom-made features", "Trigger an HTTP endpoint"],
    purchasable: false,
    ...overrides.business,
  },
];

/** The handler of GET /api/plans for mockApi. */
export const plansHandler = (plans = testPlans()) => ({ "GET plans": () => ok(plans) });

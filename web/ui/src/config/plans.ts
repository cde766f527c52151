export type PlanId = "starter" | "pro" | "business";

export type Plan = {
  id: PlanId;
  name: string;
  // EUR per month; null where the price is agreed per customer.
  price: number | null;
  perks: string[];
};

export const plans: Plan[] = [
  {
    id: "starter",
    name: "Free",
    price: 0,
    perks: ["1 message", "1 recipient", "Edit or postpone your message"],
  },
  {
    id: "pro",
    name: "Pro",
    price: 10,
    perks: ["All Free perks", "Unlimited messages"],
  },
  {
    id: "business",
    name: "Business",
    price: null,
    perks: ["All Pro perks", "Custom-made features", "Trigger an HTTP endpoint"],
  },
];

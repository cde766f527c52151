import { screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { plansHandler, testPlans } from "../../../testing/plans";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

test("an active plan is managed in the billing settings", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  mockApi({ "POST stripe-create-billing-session": () => new Promise(() => {}) });
  const { router } = renderRoute("/purchase/pro");
  await waitFor(() => expect(router.state.location.pathname).toBe("/settings/billing"));
});

test("the free plan goes to the dashboard and the business plan to the contact page", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([]), ...plansHandler() });
  const { router } = renderRoute("/purchase/starter");
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));

  const business = renderRoute("/purchase/business");
  await waitFor(() => expect(business.router.state.location.pathname).toBe("/contact"));
});

test("the pro plan starts a card checkout and goes to its page", async () => {
  signInAs();
  const assign = vi.fn();
  vi.stubGlobal("location", { ...window.location, origin: "http://localhost:3000", assign });
  const calls = mockApi({
    "POST stripe-create-checkout-session": () => ok({ id: "cs_1", url: "https://checkout.example/cs_1" }),
  });
  renderRoute("/purchase/pro");
  await waitFor(() => expect(assign).toHaveBeenCalledWith("https://checkout.example/cs_1"));
  expect(calls.find((c) => c.path === "stripe-create-checkout-session")?.body).toEqual({
    planId: "pro",
    successUrl: "http://localhost:3000/dashboard?paid=true",
    cancelUrl: "http://localhost:3000/pricing",
  });
});

test("a business plan that checkout sells starts a checkout too", async () => {
  signInAs();
  const assign = vi.fn();
  vi.stubGlobal("location", { ...window.location, origin: "http://localhost:3000", assign });
  const calls = mockApi({
    ...plansHandler(testPlans({ business: { purchasable: true } })),
    "POST stripe-create-checkout-session": () => ok({ id: "cs_2", url: "https://checkout.example/cs_2" }),
  });
  renderRoute("/purchase/business");
  await waitFor(() => expect(assign).toHaveBeenCalledWith("https://checkout.example/cs_2"));
  expect((calls.find((c) => c.path === "stripe-create-checkout-session")?.body as { planId: string }).planId).toBe("business");
});

test("a checkout error shows as an alert", async () => {
  signInAs();
  mockApi({
    "POST stripe-create-checkout-session": () =>
      fail(501, "billing/not-configured", "Payments are not set up on this server yet."),
  });
  renderRoute("/purchase/pro");
  expect(await screen.findByText("Payments are not set up on this server yet.")).toBeTruthy();
});

test("an unknown plan is not found", async () => {
  signInAs();
  mockApi({});
  renderRoute("/purchase/gold");
  expect(await screen.findByText("The page /purchase/gold could not be found")).toBeTruthy();
});

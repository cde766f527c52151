import { act, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { user, type SessionUser } from "../../../lib/auth";
import { lapsedPlanRule, plansBlockId } from "../../../lib/plans";
import { fail, mockApi } from "../../../testing/api-mock";
import { plansHandler, testPlans } from "../../../testing/plans";
import { renderRoute } from "../../../testing/render-route";

const chooseHrefs = () =>
  ["Free", "Pro", "Business"].map((name) => screen.getByRole("button", { name: `Choose ${name}` }).getAttribute("href"));

beforeEach(() => {
  mockApi(plansHandler());
});

afterEach(() => {
  user.value = undefined;
  vi.unstubAllGlobals();
});

test("signed out, Choose goes to sign up and then back to the purchase", async () => {
  user.value = null;
  renderRoute("/pricing");

  await screen.findByText("Choose the plan that makes sense for you.");
  // The cards come with the server's plans.
  await screen.findByRole("button", { name: "Choose Free" });
  expect(chooseHrefs()).toEqual([
    "/auth/signup?next=/purchase/starter",
    "/auth/signup?next=/purchase/pro",
    "/auth/signup?next=/purchase/business",
  ]);
  await waitFor(() => expect(document.title).toBe("Pricing - Sendlater"));
});

test("signed in, Choose goes straight to the purchase", async () => {
  user.value = null;
  renderRoute("/pricing");
  await screen.findByRole("button", { name: "Choose Free" });

  act(() => {
    user.value = { uid: "u1", name: "Ada", planId: "starter", planIsActive: false } as SessionUser;
  });
  // The signal's change re-renders on React's schedule, which a loaded machine can delay.
  await waitFor(() => expect(chooseHrefs()).toEqual(["/purchase/starter", "/purchase/pro", "/purchase/business"]));
});

test("the plans show their prices", async () => {
  renderRoute("/pricing");

  const cards = await screen.findAllByRole("article");
  expect(cards.map((card) => card.querySelector(".price")?.textContent)).toEqual(["€0/month", "€10/month", "-"]);
});

test("Pro stands out as the recommended plan, and Business offers to talk", async () => {
  renderRoute("/pricing");

  const cards = await screen.findAllByRole("article");
  expect(cards.map((card) => card.classList.contains("recommended"))).toEqual([false, true, false]);
  expect(cards[1]!.textContent).toContain("Most popular");
  expect(screen.getByRole("link", { name: "Contact us" }).getAttribute("href")).toBe("/contact");
});

test("the cards are the server's plans, one source: names, perks, and what checkout sells", async () => {
  vi.unstubAllGlobals();
  const calls = mockApi(plansHandler(testPlans({ business: { purchasable: true, price: "49" } })));
  renderRoute("/pricing");

  const cards = await screen.findAllByRole("article");
  expect(calls.map((c) => `${c.method} ${c.path}`)).toContain("GET plans");
  expect(cards.map((card) => card.querySelector("h2")?.textContent)).toEqual(["Free", "ProMost popular", "Business"]);
  expect(cards[1]!.textContent).toContain("Up to 10 recipients per message");
  expect(cards[1]!.textContent).toContain("Sealed messages only your recipients can open");
  expect(cards[0]!.textContent).not.toContain("Sealed");
  expect(cards[2]!.textContent).toContain("Trigger an HTTP endpoint");
  expect(cards[2]!.querySelector(".price")?.textContent).toBe("€49/month");
  // Business on sale here: no "Contact us".
  expect(screen.queryByRole("link", { name: "Contact us" })).toBeNull();
});

test("pricing says in one sentence what a lapsed plan keeps", async () => {
  renderRoute("/pricing");
  expect(await screen.findByText(lapsedPlanRule)).toBeTruthy();
});

test("plans that cannot be read say why", async () => {
  vi.unstubAllGlobals();
  mockApi({ "GET plans": () => fail(503, "service/unavailable", "The service is busy. Please try again.") });
  renderRoute("/pricing");
  expect((await screen.findByRole("alert")).textContent).toBe("The service is busy. Please try again.");
});

test("a prerendered page's plans (beside its HTML) are shown at once, and the server is not asked", async () => {
  vi.unstubAllGlobals();
  const calls = mockApi(plansHandler());
  const block = document.createElement("script");
  block.type = "application/json";
  block.id = plansBlockId;
  block.textContent = JSON.stringify(testPlans({ pro: { price: "12" } }));
  document.body.append(block);
  try {
    renderRoute("/pricing");
    // Rendered with the page, as hydration needs: no spinner, no request.
    const cards = await screen.findAllByRole("article");
    expect(cards[1]!.querySelector(".price")?.textContent).toBe("€12/month");
    await screen.findByText(lapsedPlanRule);
    expect(calls.filter((c) => c.path === "plans")).toEqual([]);
  } finally {
    block.remove();
  }
});

import { act, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { user, type SessionUser } from "../../../lib/auth";
import { renderRoute } from "../../../testing/render-route";

const chooseHrefs = () =>
  ["Free", "Pro", "Business"].map((name) => screen.getByRole("button", { name: `Choose ${name}` }).getAttribute("href"));

afterEach(() => {
  user.value = undefined;
});

test("signed out, Choose goes to sign up and then back to the purchase", async () => {
  user.value = null;
  renderRoute("/pricing");

  await screen.findByText("Choose the plan that makes sense for you.");
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
  await screen.findByText("Choose the plan that makes sense for you.");

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

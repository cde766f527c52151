import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { user, type SessionUser } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";

afterEach(() => {
  vi.unstubAllGlobals();
  user.value = undefined;
});

test("resetPassword goes on to choosing a new password with the code", async () => {
  mockApi({});
  const { router } = renderRoute("/firebase-action?mode=resetPassword&oobCode=abc");

  expect(await screen.findByRole("heading", { name: "Choose a new password" })).toBeTruthy();
  expect(router.state.location.pathname + router.state.location.search).toBe("/auth/changepass?oobCode=abc");
});

test("verifyEmail applies the code once, on load", async () => {
  const calls = mockApi({ "POST auth/action/apply": () => ok({ mode: "verifyEmail", email: "ada@example.com" }) });
  renderRoute("/firebase-action?mode=verifyEmail&oobCode=verify-1");

  expect(await screen.findByText("Your email has been verified. You may now close this window.")).toBeTruthy();
  expect(calls.filter((call) => call.path === "auth/action/apply")).toEqual([
    expect.objectContaining({ method: "POST", body: { oobCode: "verify-1" } }),
  ]);
});

test("recoverEmail tells which address is back", async () => {
  mockApi({ "POST auth/action/apply": () => ok({ mode: "recoverEmail", email: "old@example.com" }) });
  renderRoute("/firebase-action?mode=recoverEmail&oobCode=recover-1");

  expect(
    await screen.findByText(
      "Your email has been set back to old@example.com. We've also sent you a password reset email so that you can change your password if you think someone may have access to your account.",
    ),
  ).toBeTruthy();
});

test("a used code shows the server's message", async () => {
  mockApi({
    "POST auth/action/apply": () => fail(400, "auth/invalid-action-code", "This link is invalid or has already been used."),
  });
  renderRoute("/firebase-action?mode=verifyEmail&oobCode=used-1");

  expect((await screen.findByRole("alert")).textContent).toBe("This link is invalid or has already been used.");
});

test("an unknown mode is an error", async () => {
  const calls = mockApi({});
  renderRoute("/firebase-action?mode=signIn&oobCode=x");

  expect((await screen.findByRole("alert")).textContent).toBe("Invalid mode parameter");
  await waitFor(() => expect(calls.some((call) => call.path.startsWith("auth/action"))).toBe(false));
});

test("confirmReminderAddress applies the code only when the person confirms", async () => {
  const calls = mockApi({
    "POST auth/action/apply": () => ok({ mode: "confirmReminderAddress", email: "partner@example.com" }),
  });
  renderRoute("/firebase-action?mode=confirmReminderAddress&oobCode=second-1");

  expect(await screen.findByRole("heading", { name: "Receive the reminders" })).toBeTruthy();
  const confirm = screen.getByRole("button", { name: "Confirm this address" });
  expect(calls.some((call) => call.path === "auth/action/apply")).toBe(false); // a scanner's visit confirms nothing
  fireEvent.click(confirm);
  expect(
    await screen.findByText(
      "Confirmed: partner@example.com will get a copy of each reminder. Every one has a link to refuse them.",
    ),
  ).toBeTruthy();
  expect(calls.filter((call) => call.path === "auth/action/apply")).toEqual([
    expect.objectContaining({ method: "POST", body: { oobCode: "second-1" } }),
  ]);
});

test("a verified address is not a dead end: Go to your dashboard, through sign-in when signed out", async () => {
  mockApi({ "POST auth/action/apply": () => ok({ mode: "verifyEmail", email: "ada@example.com" }) });
  user.value = null;
  renderRoute("/firebase-action?mode=verifyEmail&oobCode=verify-2");

  const link = await screen.findByRole("button", { name: "Go to your dashboard" });
  expect(link.getAttribute("href")).toBe("/auth/signin");
});

test("signed in, Go to your dashboard leads to the dashboard", async () => {
  mockApi({ "POST auth/action/apply": () => ok({ mode: "verifyEmail", email: "ada@example.com" }) });
  user.value = { uid: "u1", name: "Ada" } as SessionUser;
  renderRoute("/firebase-action?mode=verifyEmail&oobCode=verify-3");

  const link = await screen.findByRole("button", { name: "Go to your dashboard" });
  expect(link.getAttribute("href")).toBe("/dashboard");
});

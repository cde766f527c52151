import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, idToken, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs, testUser } from "../../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

const recentLogin = () => fail(401, "auth/requires-recent-login", "Please sign in again to do this.");

// Settings → General also lists the sign-in methods.
const general = { "GET me/providers": () => ok([]), "GET auth/providers": () => ok([]) };

test("an unknown section shows the general settings", async () => {
  signInAs();
  mockApi({});
  renderRoute("/settings/nonsense");

  expect(await screen.findByLabelText("Name")).toBeTruthy();
  await waitFor(() => expect(document.title).toBe("Settings - Sendlater"));
  expect(screen.getByRole("link", { name: "Password" }).getAttribute("href")).toBe("/settings/password");
  expect(screen.getByRole("link", { name: "Billing" }).getAttribute("href")).toBe("/settings/billing");
});

test("General has one filled button, the profile's Save; the other forms' buttons are outlined", async () => {
  signInAs();
  mockApi(general);
  renderRoute("/settings/general");

  const save = await screen.findByRole("button", { name: "Save" });
  const others = [await screen.findByRole("button", { name: "Save reminders" })];
  expect(save.classList.contains("outline")).toBe(false);
  for (const button of others) expect(button.classList.contains("outline")).toBe(true);
  // No button spans the page: app.css sets the submit buttons' width inside this panel.
  expect(save.closest(".settings-panel")).not.toBeNull();
  const filled = screen
    .getAllByRole("button")
    .filter((button) => button.getAttribute("type") === "submit" && !button.className.includes("outline") && !button.className.includes("secondary"));
  expect(filled).toEqual([save]);
  // Each form is a section of its own, with its own save (issue 29): profile, reminders, linked
  // accounts, files and data (the access tokens are under Security, issue 30).
  const sections = document.querySelectorAll(".settings-section");
  expect(sections.length).toBe(4);
  expect(within(sections[0] as HTMLElement).getByRole("heading", { name: "Profile" })).toBeTruthy();
  expect(within(sections[1] as HTMLElement).getByRole("button", { name: "Save reminders" })).toBeTruthy();
});

test("the profile form needs a name and an email, then updates the user", async () => {
  signInAs({ name: "Ada", email: "ada@example.com" });
  const calls = mockApi({ ...general, "PATCH me": () => ok(testUser({ name: "Ada Lovelace" })) });
  renderRoute("/settings/general");

  const name = (await screen.findByLabelText("Name")) as HTMLInputElement;
  expect(name.value).toBe("Ada");
  fireEvent.change(name, { target: { value: " " } });
  fireEvent.change(screen.getByLabelText("Email"), { target: { value: "" } });
  fireEvent.click(screen.getByRole("button", { name: "Save" }));
  expect(screen.getByText("Please enter your name")).toBeTruthy();
  expect(screen.getByText("Please enter your email")).toBeTruthy();

  fireEvent.change(name, { target: { value: "Ada Lovelace" } });
  fireEvent.change(screen.getByLabelText("Email"), { target: { value: "ada@example.com" } });
  fireEvent.click(screen.getByRole("button", { name: "Save" }));

  expect(await screen.findByText("Your profile has been updated")).toBeTruthy();
  expect(calls.find((call) => call.method === "PATCH")?.body).toEqual({ name: "Ada Lovelace", email: "ada@example.com" });
  expect(user.value?.name).toBe("Ada Lovelace");
  expect(screen.getAllByText("Ada Lovelace").length).toBeGreaterThan(0);
});

test("a new email after a while asks for the password, then retries", async () => {
  signInAs({}, "old-token");
  let recent = false;
  const calls = mockApi({
    ...general,
    "PATCH me": () => (recent ? ok(testUser({ email: "new@example.com" })) : recentLogin()),
    "POST auth/reauth": (call) => {
      if ((call.body as { password: string }).password !== "plum-kettle-orbit-47") {
        return fail(401, "auth/wrong-credentials", "The email or password is incorrect.");
      }
      recent = true;
      return ok({ idToken: "recent-token", expiresAt: Date.now() + 3_600_000 });
    },
  });
  renderRoute("/settings/general");

  fireEvent.change(await screen.findByLabelText("Email"), { target: { value: "new@example.com" } });
  fireEvent.click(screen.getByRole("button", { name: "Save" }));

  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));
  expect(within(dialog).getByText("Please enter your password")).toBeTruthy();

  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "wrong-one-123" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));
  expect((await within(dialog).findByRole("alert")).textContent).toBe("The email or password is incorrect.");

  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));

  expect(await screen.findByText("Your profile has been updated")).toBeTruthy();
  expect(screen.queryByRole("dialog")).toBeNull();
  const patches = calls.filter((call) => call.method === "PATCH");
  expect(patches.map((call) => call.authorization)).toEqual(["Bearer old-token", "Bearer recent-token"]);
  expect(idToken.value).toBe("recent-token");
  expect(user.value?.email).toBe("new@example.com");
});

test("closing the sign-in dialog gives up with the server's message", async () => {
  signInAs();
  mockApi({ ...general, "PATCH me": recentLogin });
  renderRoute("/settings/general");

  fireEvent.click(await screen.findByRole("button", { name: "Save" }));
  const dialog = await screen.findByRole("dialog");
  fireEvent.click(within(dialog).getByRole("button", { name: "Close" }));

  expect((await screen.findByRole("alert")).textContent).toBe("Please sign in again to do this.");
  expect(screen.queryByRole("dialog")).toBeNull();
});

test("the password form needs both fields, and the same password twice", async () => {
  signInAs();
  const calls = mockApi({ "POST me/password": () => ok(null) });
  renderRoute("/settings/password");

  fireEvent.click(await screen.findByRole("button", { name: "Change password" }));
  expect(screen.getByText("Please enter a password")).toBeTruthy();
  expect(screen.getByText("Please enter your new password again")).toBeTruthy();

  fireEvent.change(screen.getByLabelText("New password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.change(screen.getByLabelText("Confirm new password"), { target: { value: "plum-kettle-orbit-48" } });
  fireEvent.click(screen.getByRole("button", { name: "Change password" }));
  expect(screen.getByText("This doesn't match your password")).toBeTruthy();

  fireEvent.change(screen.getByLabelText("Confirm new password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(screen.getByRole("button", { name: "Change password" }));

  expect(await screen.findByText("Your password has been updated")).toBeTruthy();
  expect(calls.find((call) => call.path === "me/password")?.body).toEqual({ password: "plum-kettle-orbit-47" });
  expect((screen.getByLabelText("New password") as HTMLInputElement).value).toBe("");
});

test("a password change after a while goes through the sign-in dialog", async () => {
  signInAs();
  let recent = false;
  mockApi({
    "POST me/password": () => (recent ? ok(null) : recentLogin()),
    "POST auth/reauth": () => {
      recent = true;
      return ok({ idToken: "recent-token", expiresAt: Date.now() + 3_600_000 });
    },
  });
  renderRoute("/settings/password");

  fireEvent.change(await screen.findByLabelText("New password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.change(screen.getByLabelText("Confirm new password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(screen.getByRole("button", { name: "Change password" }));
  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "old-password-1" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));

  expect(await screen.findByText("Your password has been updated")).toBeTruthy();
});

test("billing without an active plan goes to the pricing page", async () => {
  signInAs({ planIsActive: false });
  mockApi({});
  const { router } = renderRoute("/settings/billing");

  await waitFor(() => expect(router.state.location.pathname).toBe("/pricing"));
});

test("billing with an active plan shows why the portal cannot open", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  const calls = mockApi({
    "POST stripe-create-billing-session": () => fail(503, "billing/not-configured", "Payments are not set up on this server."),
  });
  renderRoute("/settings/billing");

  expect((await screen.findByRole("alert")).textContent).toBe("Payments are not set up on this server.");
  expect(calls.find((call) => call.path === "stripe-create-billing-session")?.body).toEqual({
    returnUrl: `${window.location.origin}/settings/general`,
  });
});

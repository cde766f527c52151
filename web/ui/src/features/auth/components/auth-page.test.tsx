import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { deferred, fail, mockApi, ok } from "../../../testing/api-mock";
import { finishPopup, stubPopup } from "../../../testing/popup";
import { renderRoute } from "../../../testing/render-route";
import { signInAs, testUser } from "../../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

const grant = () => ok({ idToken: "t1", expiresAt: Date.now() + 3_600_000, user: testUser() });

const fill = (label: string | RegExp, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

test.each([
  ["signup", "Get yourself an account"],
  ["signin", "Welcome back"],
  ["forgotpass", "Get a new password"],
  ["changepass", "Choose a new password"],
  ["no-such-type", "Get yourself an account"],
])("/auth/%s is titled %s", async (type, title) => {
  mockApi({});
  renderRoute(`/auth/${type}`);
  expect(await screen.findByRole("heading", { level: 1, name: title })).toBeTruthy();
  await waitFor(() => expect(document.title).toBe(`${title} - Sendlater`));
});

test("sign up asks for every field, then for a matching password", async () => {
  const calls = mockApi({});
  renderRoute("/auth/signup");

  fireEvent.click(await screen.findByRole("button", { name: "Sign up" }));
  expect(screen.getByText("Please enter your email")).toBeTruthy();
  expect(screen.getByText("Please enter a password")).toBeTruthy();
  expect(screen.getByText("Please enter your password again")).toBeTruthy();
  expect(screen.getByLabelText("Email").getAttribute("aria-invalid")).toBe("true");

  fill("Email", "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fill("Confirm password", "plum-kettle-orbit-48");
  fireEvent.click(screen.getByRole("button", { name: "Sign up" }));
  expect(screen.getByText("This doesn't match your password")).toBeTruthy();
  expect(calls.filter((call) => call.path === "auth/signup")).toEqual([]);
});

test("sign up sends the browser's time zone, waits with a spinner, then goes to next", async () => {
  const reply = deferred<ReturnType<typeof grant>>();
  const calls = mockApi({ "POST auth/signup": () => reply.promise });
  const { router } = renderRoute("/auth/signup?next=/settings/password");

  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fill("Confirm password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign up" }));

  const busy = await screen.findByRole("button", { name: "Sign up" });
  await waitFor(() => expect(busy.getAttribute("aria-busy")).toBe("true"));
  expect((busy as HTMLButtonElement).disabled).toBe(true);
  expect(calls.find((call) => call.path === "auth/signup")?.body).toEqual({
    email: "ada@example.com",
    password: "plum-kettle-orbit-47",
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });

  reply.resolve(grant());
  await waitFor(() => expect(router.state.location.pathname).toBe("/settings/password"));
  expect(user.value).toMatchObject({ uid: "u1" });
});

test.each([
  ["no next", "/auth/signin", "/dashboard"],
  ["another site", "/auth/signin?next=//evil.example/x", "/dashboard"],
  ["a URL", "/auth/signin?next=https://evil.example/", "/dashboard"],
  ["a path here", "/auth/signin?next=/purchase/pro", "/purchase/pro"],
])("sign in with %s (%s) lands on %s", async (_, start, landing) => {
  mockApi({ "POST auth/signin": grant });
  const { router } = renderRoute(start);

  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

  await waitFor(() => expect(router.state.location.pathname).toBe(landing));
});

test("a refused sign in shows the server's message in an alert", async () => {
  mockApi({
    "POST auth/signin": () => fail(401, "auth/wrong-credentials", "The email or password is incorrect."),
  });
  renderRoute("/auth/signin");

  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "wrong-password-1");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

  expect((await screen.findByRole("alert")).textContent).toBe("The email or password is incorrect.");
  expect(user.value).toBeUndefined();
});

test("an account under attack: the browser solves the server's puzzle and signs in", async () => {
  let tries = 0;
  const calls = mockApi({
    "POST auth/signin": () =>
      ++tries === 1
        ? fail(429, "auth/proof-required", "There were many failed sign-ins to this account: your browser must solve a short puzzle first.")
        : grant(),
    "POST auth/challenge": () => ok({ challenge: "v1.1700000000.12.abc.def", difficulty: 12, expiresAt: Date.now() + 300_000 }),
  });
  renderRoute("/auth/signin");

  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "correct horse battery");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

  await waitFor(() => expect(user.value?.email).toBe("ada@example.com"));
  const signins = calls.filter((call) => call.path === "auth/signin");
  // The nonce the server's ProofSolved accepts first (core tests compute the same).
  expect((signins[1]?.body as { proof: unknown }).proof).toEqual({ challenge: "v1.1700000000.12.abc.def", nonce: "6824" });
});

test("the footers link the forms, keeping next", async () => {
  mockApi({});
  renderRoute("/auth/signin?next=/purchase/pro");
  expect((await screen.findByRole("link", { name: "Create an account" })).getAttribute("href")).toBe(
    "/auth/signup?next=/purchase/pro",
  );
  fireEvent.click(screen.getByRole("link", { name: "Forgot Password?" }));

  expect(await screen.findByRole("heading", { name: "Get a new password" })).toBeTruthy();
  const footer = screen.getByText(/Remember it after all\?/);
  fireEvent.click(within(footer).getByRole("link", { name: "Sign in" }));

  expect(await screen.findByRole("heading", { name: "Welcome back" })).toBeTruthy();
});

test("the sign up footer links the terms, the privacy policy and sign in", async () => {
  mockApi({});
  renderRoute("/auth/signup");
  const footer = (await screen.findByText(/By signing up/)).closest("footer")!;
  expect(within(footer).getByRole("link", { name: "Terms of Service" }).getAttribute("href")).toBe("/legal/terms-of-service");
  expect(within(footer).getByRole("link", { name: "Privacy Policy" }).getAttribute("href")).toBe("/legal/privacy-policy");
  expect(within(footer).getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/auth/signin");
});

test("forgot password sends the reset email", async () => {
  const calls = mockApi({ "POST auth/password-reset": () => ok(null) });
  renderRoute("/auth/forgotpass");

  fireEvent.click(await screen.findByRole("button", { name: "Send reset email" }));
  expect(screen.getByText("Please enter your email")).toBeTruthy();
  fill("Email", "ada@example.com");
  fireEvent.click(screen.getByRole("button", { name: "Send reset email" }));

  expect(await screen.findByText("Password reset email sent")).toBeTruthy();
  expect(screen.getByText(/the email is on its way/)).toBeTruthy();
  expect(calls.find((call) => call.path === "auth/password-reset")?.body).toEqual({ email: "ada@example.com" });
});

test("change password uses the oobCode and confirms the change", async () => {
  const calls = mockApi({ "POST auth/password-reset/confirm": () => ok(null) });
  renderRoute("/auth/changepass?oobCode=code-1");

  fill(await screen.findByLabelText("New password").then(() => "New password"), "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Change password" }));
  expect(screen.getByText("Please enter your password again")).toBeTruthy();
  fill("Confirm password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Change password" }));

  expect(await screen.findByText("Your password has been changed")).toBeTruthy();
  expect(calls.find((call) => call.path === "auth/password-reset/confirm")?.body).toEqual({
    oobCode: "code-1",
    password: "plum-kettle-orbit-47",
  });
});

test("a weak new password shows the server's reason under the field", async () => {
  mockApi({
    "POST auth/password-reset/confirm": () =>
      fail(422, "request/validation", "Some fields are invalid.", { password: "Please choose a less common password" }),
  });
  renderRoute("/auth/changepass?oobCode=code-1");

  fill(await screen.findByLabelText("New password").then(() => "New password"), "password1");
  fill("Confirm password", "password1");
  fireEvent.click(screen.getByRole("button", { name: "Change password" }));

  expect(await screen.findByText("Please choose a less common password")).toBeTruthy();
});

test("social sign-in shows only the providers the server has configured", async () => {
  mockApi({});
  renderRoute("/auth/signin");
  await screen.findByRole("heading", { name: "Welcome back" });
  await waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled());
  expect(screen.queryByText("OR")).toBeNull();
  expect(screen.queryByRole("button", { name: /Google/ })).toBeNull();
});

test("configured providers show, above OR, the last used one marked", async () => {
  localStorage.setItem("lastAuthProvider", "github");
  mockApi({
    "GET auth/providers": () =>
      ok([
        { id: "google", name: "Google" },
        { id: "github", name: "GitHub" },
      ]),
  });
  renderRoute("/auth/signup");

  expect(await screen.findByRole("button", { name: "Google" })).toBeTruthy();
  expect(screen.getByRole("button", { name: "GitHub Last used" })).toBeTruthy();
  expect(screen.getByText("OR")).toBeTruthy();
});

const providers = () =>
  ok([
    { id: "google", name: "Google" },
    { id: "twitter", name: "X" },
  ]);

test("a provider's popup signs in: the session from its cookie, the dashboard, Last used next time", async () => {
  localStorage.removeItem("lastAuthProvider");
  const { popup, open } = stubPopup();
  mockApi({ "GET auth/providers": providers, "POST auth/token": grant, "GET messages": () => ok([]) });
  const { router } = renderRoute("/auth/signin");

  fireEvent.click(await screen.findByRole("button", { name: "Google" }));
  expect(open).toHaveBeenCalledWith("/api/auth/oauth/google/start", "sendlater-oauth", "popup,width=500,height=650");
  expect(screen.getByRole("button", { name: "Google" }).getAttribute("aria-busy")).toBe("true");
  finishPopup({ provider: "google", message: "You are signed in with Google." });
  popup.closed = true;

  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(user.value?.uid).toBe("u1");
  expect(localStorage.getItem("lastAuthProvider")).toBe("google");
});

test("a popup's error shows; a blocked popup says how to go on", async () => {
  stubPopup();
  mockApi({ "GET auth/providers": providers });
  renderRoute("/auth/signin");

  fireEvent.click(await screen.findByRole("button", { name: "Google" }));
  finishPopup({
    provider: "google",
    status: "error",
    code: "auth/account-exists-with-different-credential",
    message: "An account with that email already exists; sign in and link it from settings.",
  });
  expect((await screen.findByRole("alert")).textContent).toBe(
    "An account with that email already exists; sign in and link it from settings.",
  );
  expect(user.value).toBeFalsy();

  vi.stubGlobal("open", vi.fn(() => null));
  fireEvent.click(screen.getByRole("button", { name: "X" }));
  expect((await screen.findByRole("alert")).textContent).toBe("The sign-in window could not open: click again, or allow popups for this site.");
});

test("X gives no email: the address is asked for and confirmed by email", async () => {
  stubPopup();
  const calls = mockApi({ "GET auth/providers": providers, "POST auth/oauth/twitter/email": () => ok(null, 201) });
  renderRoute("/auth/signup");

  fireEvent.click(await screen.findByRole("button", { name: "X" }));
  finishPopup({
    provider: "twitter",
    status: "error",
    code: "auth/email-required",
    message: "X does not share your email address: please enter it to finish signing up.",
  });
  const form = await screen.findByRole("form", { name: "Your email for X" });
  expect(within(form).getByText("X does not share your email address: please enter it to finish signing up.")).toBeTruthy();
  fireEvent.click(within(form).getByRole("button", { name: "Continue" }));
  expect(within(form).getByText("Please enter your email")).toBeTruthy();
  fireEvent.change(within(form).getByLabelText("Email"), { target: { value: "ada@example.com" } });
  fireEvent.click(within(form).getByRole("button", { name: "Continue" }));

  expect(await screen.findByText("We sent a link to ada@example.com: confirm your address with it, then sign in with X again.")).toBeTruthy();
  expect(calls.find((c) => c.path === "auth/oauth/twitter/email")?.body).toEqual({ email: "ada@example.com" });
});

test.each([
  ["/auth/signin", "/dashboard"],
  ["/auth/signin?next=/settings/password", "/settings/password"],
  ["/auth/signup?next=/purchase/pro", "/purchase/pro"],
])("signed in, %s goes on to %s", async (path, landing) => {
  signInAs();
  mockApi({ "GET messages": () => ok([]) });
  const { router } = renderRoute(path);

  await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe(landing));
  expect(router.state.historyAction).toBe("REPLACE");
});

test("a refusal that names a field of the form shows under it, not also in the alert", async () => {
  user.value = null;
  mockApi({
    "POST auth/signup": () =>
      fail(422, "auth/weak-password", "This password is too common.", { password: "This password is too common." }),
  });
  renderRoute("/auth/signup");

  fireEvent.change(await screen.findByLabelText("Email"), { target: { value: "ada@example.com" } });
  fireEvent.change(screen.getByLabelText("Password"), { target: { value: "password1" } });
  fireEvent.change(screen.getByLabelText("Confirm password"), { target: { value: "password1" } });
  fireEvent.click(screen.getByRole("button", { name: "Sign up" }));

  expect(await screen.findByText("This password is too common.")).toBeTruthy();
  expect(screen.getAllByText("This password is too common.")).toHaveLength(1);
  expect(screen.queryByRole("alert")).toBeNull();
});

const challenge = { token: "ch-1", expiresAt: Date.now() + 300_000, methods: ["totp", "recovery"] };

test("an account with an authenticator app: the code step, no session until the code is right", async () => {
  const calls = mockApi({
    "POST auth/signin": () => ok({ secondFactor: challenge }),
    "POST auth/second-factor": (call) =>
      (call.body as { code: string }).code === "123456" ? grant() : fail(401, "auth/wrong-credentials", "The code is incorrect.", { code: "The code is incorrect." }),
    "GET messages": () => ok([]),
  });
  const { router } = renderRoute("/auth/signin");
  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

  const step = await screen.findByRole("form", { name: "Second step" });
  expect(user.value).toBeFalsy();
  expect(within(step).getByLabelText("Code").getAttribute("autocomplete")).toBe("one-time-code");
  fireEvent.change(within(step).getByLabelText("Code"), { target: { value: "000000" } });
  fireEvent.click(within(step).getByRole("button", { name: "Verify" }));
  expect(await within(step).findByText("The code is incorrect.")).toBeTruthy();
  expect(user.value).toBeFalsy();

  fireEvent.change(within(step).getByLabelText("Code"), { target: { value: "123456" } });
  fireEvent.click(within(step).getByRole("button", { name: "Verify" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(user.value?.uid).toBe("u1");
  expect(calls.filter((c) => c.path === "auth/second-factor").map((c) => c.body)).toEqual([
    { token: "ch-1", code: "000000" },
    { token: "ch-1", code: "123456" },
  ]);
});

test("a recovery code says how many remain", async () => {
  mockApi({
    "POST auth/signin": () => ok({ secondFactor: challenge }),
    "POST auth/second-factor": () => ok({ idToken: "t1", expiresAt: Date.now() + 3_600_000, user: testUser(), recoveryCodesLeft: 1 }),
    "GET messages": () => ok([]),
  });
  const { router } = renderRoute("/auth/signin");
  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  fireEvent.change(await screen.findByLabelText("Code"), { target: { value: "abcd-efgh-ijkl-mnop" } });
  fireEvent.click(screen.getByRole("button", { name: "Verify" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect((await screen.findByText(/signed in with a recovery code/)).textContent).toContain("1 recovery code remains.");
});

test("a provider's sign-in to an account with an authenticator app asks for the code", async () => {
  stubPopup();
  const calls = mockApi({ "GET auth/providers": providers, "POST auth/second-factor": grant, "GET messages": () => ok([]) });
  const { router } = renderRoute("/auth/signin");
  fireEvent.click(await screen.findByRole("button", { name: "Google" }));
  finishPopup({ provider: "google", status: "second-factor", secondFactor: challenge, message: "Enter the code" });
  fireEvent.change(await screen.findByLabelText("Code"), { target: { value: "123456" } });
  fireEvent.click(screen.getByRole("button", { name: "Verify" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(calls.find((c) => c.path === "auth/second-factor")?.body).toEqual({ token: "ch-1", code: "123456" });
});

// OWASP ASVS 5.0 6.2.6 and 6.2.7: every password field is masked, says which password a manager
// should fill, and takes a paste.
test.each([
  ["/auth/signup", "new-password"],
  ["/auth/signin", "current-password"],
])("%s: password fields are masked, named for password managers, and take a paste", async (path, autocomplete) => {
  mockApi({});
  renderRoute(path);
  await screen.findByLabelText("Email");
  const fields = Array.from(document.querySelectorAll<HTMLInputElement>("input[name*='password' i], input[type='password']"));
  expect(fields.length).toBeGreaterThan(0);
  for (const field of fields) {
    expect(field.type).toBe("password");
    expect(field.getAttribute("autocomplete")).toBe(autocomplete);
    expect(fireEvent.paste(field, { clipboardData: { getData: () => "plum-kettle-orbit-47" } })).toBe(true);
  }
});

import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { deferred, fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { testUser } from "../../../testing/session";
import { credential, refusal, stubWebAuthn, unstubWebAuthn, waitForAbort, serverDoesPasskeys } from "../../../testing/webauthn";

beforeEach(serverDoesPasskeys);

afterEach(() => {
  cleanup();
  endSession();
  user.value = undefined;
  unstubWebAuthn();
  vi.unstubAllGlobals();
});

const grant = () => ok({ idToken: "t1", expiresAt: Date.now() + 3_600_000, user: testUser() });
const ceremony = (conditional: boolean) => ok({ options: { publicKey: { challenge: "AQID", rpId: "localhost" } }, state: conditional ? "st-auto" : "st-button" });
const begin = (call: { body: unknown }) => ceremony((call.body as { conditional: boolean }).conditional);
const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

test("Sign in with a passkey: the browser's prompt, then the dashboard, no email or password typed", async () => {
  const webauthn = stubWebAuthn();
  const calls = mockApi({ "POST auth/passkey/begin": begin, "POST auth/passkey": grant, "GET messages": () => ok([]) });
  const { router } = renderRoute("/auth/signin");
  const button = await screen.findByRole("button", { name: "Sign in with a passkey" });
  expect(button.className).toContain("outline"); // secondary: Sign in stays the one primary
  await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
  fireEvent.click(button);
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(user.value?.uid).toBe("u1");
  expect(webauthn.get.mock.calls[0]![0].mediation).toBeUndefined();
  expect(calls.find((c) => c.path === "auth/passkey/begin")?.body).toEqual({ conditional: false });
  expect(calls.find((c) => c.path === "auth/passkey")?.body).toEqual({ state: "st-button", response: { id: "cred-1" } });
});

test("a closed prompt, a refused passkey and a browser without passkeys each say so, and nobody is signed in", async () => {
  stubWebAuthn({ get: () => refusal("NotAllowedError") });
  mockApi({
    "POST auth/passkey/begin": begin,
    "POST auth/passkey": () => fail(401, "auth/wrong-credentials", "This passkey could not sign you in."),
  });
  renderRoute("/auth/signin");
  const button = await screen.findByRole("button", { name: "Sign in with a passkey" });
  fireEvent.click(button);
  expect((await screen.findByRole("alert")).textContent).toMatch(/^No passkey was used: the prompt was closed/);

  stubWebAuthn({ get: () => Promise.resolve(credential({ id: "gone" })) });
  fireEvent.click(button);
  await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("This passkey could not sign you in."));

  Reflect.deleteProperty(navigator, "credentials");
  vi.stubGlobal("PublicKeyCredential", undefined);
  fireEvent.click(button);
  await waitFor(() => expect(screen.getByRole("alert").textContent).toMatch(/^This browser cannot use passkeys/));
  expect(user.value).toBeFalsy();
});

test("the email field offers passkeys in its autofill where the browser can; one picked signs in", async () => {
  const picked = deferred<unknown>();
  const webauthn = stubWebAuthn({ conditional: true, get: () => picked.promise });
  const calls = mockApi({ "POST auth/passkey/begin": begin, "POST auth/passkey": grant, "GET messages": () => ok([]) });
  const { router } = renderRoute("/auth/signin");
  expect((await screen.findByLabelText("Email")).getAttribute("autocomplete")).toBe("username webauthn");
  await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(1));
  expect(webauthn.get.mock.calls[0]![0].mediation).toBe("conditional");
  expect(calls.find((c) => c.path === "auth/passkey/begin")?.body).toEqual({ conditional: true });
  picked.resolve(credential({ id: "cred-1" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(calls.find((c) => c.path === "auth/passkey")?.body).toEqual({ state: "st-auto", response: { id: "cred-1" } });
});

test("no autofill where the browser cannot: no request waits", async () => {
  const webauthn = stubWebAuthn({ conditional: false });
  const calls = mockApi({});
  renderRoute("/auth/signin");
  await screen.findByRole("button", { name: "Sign in with a passkey" });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(webauthn.get).not.toHaveBeenCalled();
  expect(calls.some((c) => c.path === "auth/passkey/begin")).toBe(false);
});

test("sending the password form stops the waiting autofill first; a wrong password makes it wait again", async () => {
  const webauthn = stubWebAuthn({ conditional: true, get: waitForAbort });
  // Whether the waiting autofill was stopped when each password reached the server.
  const stoppedFirst: boolean[] = [];
  mockApi({
    "POST auth/passkey/begin": begin,
    "POST auth/signin": (call) => {
      stoppedFirst.push(webauthn.get.mock.calls.at(-1)![0].signal!.aborted);
      return (call.body as { password: string }).password === "right-password-47"
        ? grant()
        : fail(401, "auth/wrong-credentials", "The email or password is incorrect.");
    },
    "GET messages": () => ok([]),
  });
  const { router } = renderRoute("/auth/signin");
  await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(1));
  const first = webauthn.get.mock.calls[0]![0].signal!;

  fill("Email", "ada@example.com");
  fill("Password", "wrong-password-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  expect(await screen.findByText("The email or password is incorrect.")).toBeTruthy();
  expect(first.aborted).toBe(true);
  await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(2));
  const second = webauthn.get.mock.calls[1]![0].signal!;
  expect(second.aborted).toBe(false);

  fill("Password", "right-password-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(second.aborted).toBe(true);
  expect(stoppedFirst).toEqual([true, true]);
  // The aborted autofill showed nothing.
  expect(screen.queryByRole("alert")).toBeNull();
});

test("the code step offers Use a passkey when the account has one; it ends the step with the challenge's token", async () => {
  stubWebAuthn();
  const calls = mockApi({
    "POST auth/signin": () => ok({ secondFactor: { token: "ch-1", expiresAt: Date.now() + 300_000, methods: ["totp", "recovery", "passkey"] } }),
    "POST auth/passkey/begin": begin,
    "POST auth/second-factor/passkey": grant,
    "GET messages": () => ok([]),
  });
  const { router } = renderRoute("/auth/signin");
  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  const step = await screen.findByRole("form", { name: "Second step" });
  expect(screen.queryByRole("button", { name: "Sign in with a passkey" })).toBeNull();
  fireEvent.click(within(step).getByRole("button", { name: "Use a passkey" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  expect(calls.find((c) => c.path === "auth/second-factor/passkey")?.body).toEqual({
    token: "ch-1",
    state: "st-button",
    response: { id: "cred-1" },
  });
});

test("the code step without a passkey on the account offers none; a closed prompt there says so", async () => {
  stubWebAuthn({ get: () => refusal("NotAllowedError") });
  mockApi({
    "POST auth/signin": (call) =>
      ok({
        secondFactor: {
          token: "ch-1",
          expiresAt: Date.now() + 300_000,
          methods: (call.body as { email: string }).email === "ada@example.com" ? ["totp", "passkey"] : ["totp"],
        },
      }),
    "POST auth/passkey/begin": begin,
  });
  renderRoute("/auth/signin");
  fill(await screen.findByLabelText("Email").then(() => "Email"), "bo@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  const step = await screen.findByRole("form", { name: "Second step" });
  expect(within(step).queryByRole("button", { name: "Use a passkey" })).toBeNull();
  cleanup();

  renderRoute("/auth/signin");
  fill(await screen.findByLabelText("Email").then(() => "Email"), "ada@example.com");
  fill("Password", "plum-kettle-orbit-47");
  fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
  const again = await screen.findByRole("form", { name: "Second step" });
  fireEvent.click(within(again).getByRole("button", { name: "Use a passkey" }));
  expect((await within(again).findByRole("alert")).textContent).toMatch(/^No passkey was used/);
  expect(user.value).toBeFalsy();
});

test("a server without passkeys: no button and no autofill request", async () => {
  unstubWebAuthn();
  const webauthn = stubWebAuthn({ conditional: true });
  document.getElementById("public-settings")?.remove();
  const calls = mockApi({});
  renderRoute("/auth/signin");
  expect((await screen.findByLabelText("Email")).getAttribute("autocomplete")).toBe("username webauthn");
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(screen.queryByRole("button", { name: "Sign in with a passkey" })).toBeNull();
  expect(webauthn.get).not.toHaveBeenCalled();
  expect(calls.some((c) => c.path.startsWith("auth/passkey"))).toBe(false);
});

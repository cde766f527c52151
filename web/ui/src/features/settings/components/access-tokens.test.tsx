import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import type { AccessToken } from "../api/account";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

// Settings → Security also lists where the account is signed in.
const general = { "GET me/sessions": () => ok({ sessions: [], signInAlerts: true }) };

// 23:30 UTC is already the next day in Paris, the test user's time zone.
const march5 = Date.UTC(2026, 2, 5, 23, 30);
const april2 = Date.UTC(2026, 3, 2, 9, 0);
const day = (time: number) => new Intl.DateTimeFormat(undefined, { dateStyle: "long", timeZone: "Europe/Paris" }).format(time);

const laptop: AccessToken = {
  id: "t1",
  name: "sendlater on laptop",
  createdAt: march5,
  lastUsedAt: april2,
  scopes: ["messages:read", "messages:write"],
};
const script: AccessToken = { id: "t2", name: "backup script", createdAt: april2, scopes: ["messages:read"] };
const old: AccessToken = {
  id: "t0",
  name: "old script",
  createdAt: march5,
  scopes: ["messages:read", "messages:write", "account"],
  madeBeforeScopes: true,
};
const secret = "sl_pat_0123456789abcdef0123456789abcdef";

const tokens = () => screen.findByRole("region", { name: "Access tokens" });

test("the tokens, newest first, with when each was made and last used in the author's time zone", async () => {
  signInAs({ timezone: "Europe/Paris" });
  const calls = mockApi({ ...general, "GET me/tokens": () => ok([laptop, script]) });
  renderRoute("/settings/security");

  const region = await tokens();
  const items = await within(region).findAllByRole("listitem");
  expect(items.map((li) => li.querySelector("strong")?.textContent)).toEqual(["backup script", "sendlater on laptop"]);
  expect(items[0]!.textContent).toContain(`Created on ${day(april2)} · Never used · May read messages`);
  expect(items[1]!.textContent).toContain(`Created on ${day(march5)} · Last used on ${day(april2)} · May read messages, write messages`);
  expect(day(march5)).toMatch(/6/);
  expect(within(region).getByText(/terminal app and your scripts/).textContent).toContain("sendlater login");
  expect(within(region).getByRole("button", { name: "Revoke sendlater on laptop" })).toBeTruthy();
  expect(calls.find((c) => c.path === "me/tokens")?.authorization).toBe("Bearer token-1");
});

test("no tokens: the empty state", async () => {
  signInAs();
  mockApi({ ...general, "GET me/tokens": () => ok([]) });
  renderRoute("/settings/security");

  expect(await within(await tokens()).findByText("You have no access tokens.")).toBeTruthy();
});

test("revoke asks first, then deletes the token and says so", async () => {
  signInAs();
  const calls = mockApi({ ...general, "GET me/tokens": () => ok([laptop, script]), "DELETE me/tokens/t1": () => ok(null) });
  renderRoute("/settings/security");

  const region = await tokens();
  fireEvent.click(await within(region).findByRole("button", { name: "Revoke sendlater on laptop" }));
  let dialog = await screen.findByRole("dialog", { name: "Revoke “sendlater on laptop”?" });
  const keep = within(dialog).getByRole("button", { name: "Keep it" });
  await waitFor(() => expect(document.activeElement).toBe(keep));
  fireEvent.click(keep);
  expect(screen.queryByRole("dialog")).toBeNull();
  expect(calls.some((c) => c.method === "DELETE")).toBe(false);

  fireEvent.click(within(region).getByRole("button", { name: "Revoke sendlater on laptop" }));
  dialog = await screen.findByRole("dialog", { name: "Revoke “sendlater on laptop”?" });
  expect(within(dialog).getByText(/stops working at once\. This cannot be undone\./)).toBeTruthy();
  fireEvent.click(within(dialog).getByRole("button", { name: "Revoke token" }));

  // The live region is always there: wait for its words, not for it.
  const status = within(region).getByRole("status");
  await waitFor(() => expect(status.textContent).toBe("The token “sendlater on laptop” is revoked and no longer works."));
  expect(screen.queryByRole("dialog")).toBeNull();
  expect(within(region).queryByText("sendlater on laptop")).toBeNull();
  expect(within(region).getByText("backup script")).toBeTruthy();
  expect(calls.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual(["me/tokens/t1"]);
  await waitFor(() => expect(document.activeElement).toBe(within(region).getByRole("heading", { name: "Access tokens" })));
});

test("a new token is shown once, with a copy button, and listed", async () => {
  signInAs();
  const writeText = vi.fn(async () => undefined);
  vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
  let listed: AccessToken[] = [laptop];
  const calls = mockApi({
    ...general,
    "GET me/tokens": () => ok(listed),
    "POST me/tokens": () => {
      listed = [laptop, script];
      return ok({ ...script, token: secret }, 201);
    },
  });
  renderRoute("/settings/security");

  const region = await tokens();
  fireEvent.change(await within(region).findByLabelText("Token name"), { target: { value: "  backup script " } });
  fireEvent.click(within(region).getByRole("button", { name: "Create token" }));

  const field = (await within(region).findByLabelText("Your token “backup script”")) as HTMLInputElement;
  expect(field.value).toBe(secret);
  expect(field.readOnly).toBe(true);
  // Focused by an effect, which React may run a moment after the field is in the page.
  await waitFor(() => expect(document.activeElement).toBe(field));
  expect(within(region).getByText("Copy your new token now: it will not be shown again.")).toBeTruthy();
  expect(calls.find((c) => c.method === "POST")?.body).toEqual({ name: "backup script", scopes: ["messages:read"] });
  expect((within(region).getByLabelText("Token name") as HTMLInputElement).value).toBe("");
  const items = within(region).getAllByRole("listitem");
  expect(items.map((li) => li.querySelector("strong")?.textContent)).toEqual(["backup script", "sendlater on laptop"]);
  expect(items[0]!.textContent).toContain("Never used");

  fireEvent.click(within(region).getByRole("button", { name: "Copy token" }));
  expect(await within(region).findByText("Copied.")).toBeTruthy();
  expect(writeText).toHaveBeenCalledWith(secret);

  // The list never carries the secret: the next visit shows the token without it.
  cleanup();
  renderRoute("/settings/security");
  const again = await tokens();
  await within(again).findByText("backup script");
  expect(within(again).queryByDisplayValue(secret)).toBeNull();
  expect(document.body.textContent).not.toContain(secret);
});

test("the name is checked as the server checks it, and the server's field error shows under the field", async () => {
  signInAs();
  const calls = mockApi({
    ...general,
    "GET me/tokens": () => ok([]),
    "POST me/tokens": () => fail(422, "request/validation", "Please check the highlighted fields.", { name: "Please enter a name for the token" }),
  });
  renderRoute("/settings/security");

  const region = await tokens();
  const name = await within(region).findByLabelText("Token name");
  const create = within(region).getByRole("button", { name: "Create token" });
  fireEvent.change(name, { target: { value: "   " } });
  fireEvent.click(create);
  expect(within(region).getByText("Please enter a name for the token")).toBeTruthy();
  expect(name.getAttribute("aria-invalid")).toBe("true");

  fireEvent.change(name, { target: { value: "x".repeat(101) } });
  fireEvent.click(create);
  expect(within(region).getByText("The name must be one line of at most 100 characters")).toBeTruthy();
  fireEvent.change(name, { target: { value: "laptop \u202egpj.exe" } });
  fireEvent.click(create);
  expect(within(region).getByText("The name may not contain control, invisible or direction-changing characters")).toBeTruthy();
  expect(calls.some((c) => c.method === "POST")).toBe(false);

  // 100 characters, some of them outside the BMP, pass: the server counts characters.
  fireEvent.change(name, { target: { value: "🔑".repeat(100) } });
  fireEvent.click(create);
  expect(await within(region).findByText("Please enter a name for the token")).toBeTruthy();
  expect(calls.filter((c) => c.method === "POST")).toHaveLength(1);
});

test("an error reply is shown: the list, a refused token, a revoke that failed", async () => {
  signInAs();
  mockApi({ ...general, "GET me/tokens": () => fail(500, "internal/error", "Internal error.") });
  renderRoute("/settings/security");
  expect((await within(await tokens()).findByRole("alert")).textContent).toBe("Internal error.");
  cleanup();

  mockApi({
    ...general,
    "GET me/tokens": () => ok([laptop]),
    "POST me/tokens": () => fail(409, "request/conflict", "You have 50 access tokens, the most there may be. Revoke one first."),
    "DELETE me/tokens/t1": () => fail(500, "internal/error", "Internal error."),
  });
  renderRoute("/settings/security");
  const region = await tokens();
  fireEvent.change(await within(region).findByLabelText("Token name"), { target: { value: "one more" } });
  fireEvent.click(within(region).getByRole("button", { name: "Create token" }));
  expect((await within(region).findByRole("alert")).textContent).toBe("You have 50 access tokens, the most there may be. Revoke one first.");
  expect(within(region).queryByLabelText(/^Your token/)).toBeNull();

  fireEvent.click(within(region).getByRole("button", { name: "Revoke sendlater on laptop" }));
  fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Revoke token" }));
  await waitFor(() => expect(within(region).getAllByRole("alert").map((a) => a.textContent)).toContain("Internal error."));
  expect(screen.queryByRole("dialog")).toBeNull();
  expect(within(region).getByText("sendlater on laptop")).toBeTruthy();
});

test("a token revoked elsewhere meanwhile leaves the list, with the server's reply", async () => {
  signInAs();
  mockApi({
    ...general,
    "GET me/tokens": () => ok([laptop, script]),
    "DELETE me/tokens/t1": () => fail(404, "token/not-found", "No such access token."),
  });
  renderRoute("/settings/security");

  const region = await tokens();
  fireEvent.click(await within(region).findByRole("button", { name: "Revoke sendlater on laptop" }));
  fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Revoke token" }));
  expect((await within(region).findByRole("alert")).textContent).toBe("No such access token.");
  await waitFor(() => expect(within(region).queryByText("sendlater on laptop")).toBeNull());
  expect(within(region).getByText("backup script")).toBeTruthy();
  await waitFor(() => expect(document.activeElement).toBe(within(region).getByRole("heading", { name: "Access tokens" })));
});

test("making a token after a while asks for the password, then makes it", async () => {
  signInAs();
  let recent = false;
  const calls = mockApi({
    ...general,
    "GET me/tokens": () => ok([]),
    "POST me/tokens": () =>
      recent ? ok({ ...script, token: secret }, 201) : fail(401, "auth/requires-recent-login", "Please sign in again to complete this action."),
    "POST auth/reauth": () => {
      recent = true;
      return ok({ idToken: "token-2", expiresAt: Date.now() + 3_600_000 });
    },
  });
  renderRoute("/settings/security");

  const region = await tokens();
  fireEvent.change(await within(region).findByLabelText("Token name"), { target: { value: "backup script" } });
  fireEvent.click(within(region).getByRole("button", { name: "Create token" }));
  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));

  const field = (await within(region).findByLabelText("Your token “backup script”")) as HTMLInputElement;
  expect(field.value).toBe(secret);
  // Focused once the dialog is gone, not left on the dialog's opener.
  await waitFor(() => expect(document.activeElement).toBe(field));
  expect(calls.filter((c) => c.method === "POST" && c.path === "me/tokens")).toHaveLength(2);
});

test("each token's scopes are listed; one made before scopes has full access", async () => {
  signInAs({ timezone: "Europe/Paris" });
  mockApi({ ...general, "GET me/tokens": () => ok([old, { ...script, scopes: ["messages:read", "messages:write", "account"] }]) });
  renderRoute("/settings/security");

  const items = await within(await tokens()).findAllByRole("listitem");
  expect(items[0]!.textContent).toContain("May read messages, write messages, change the account");
  expect(items[1]!.textContent).toContain("old script");
  expect(items[1]!.textContent).toContain("Full access (made before scopes)");
});

test("a new token is read-only unless more is chosen; at least one scope, and the server's scope error under them", async () => {
  signInAs();
  let reply = () => ok({ ...script, scopes: ["messages:read", "messages:write", "account"], token: secret }, 201);
  const calls = mockApi({ ...general, "GET me/tokens": () => ok([]), "POST me/tokens": () => reply() });
  renderRoute("/settings/security");

  const region = await tokens();
  const scopes = within(region).getByRole("group", { name: "What this token may do" });
  const read = within(scopes).getByLabelText("Read your messages (messages:read)") as HTMLInputElement;
  const write = within(scopes).getByLabelText("Create, change and delete your messages (messages:write)") as HTMLInputElement;
  const account = within(scopes).getByLabelText(
    "Change your account: profile, settings, access tokens, export, billing (account)",
  ) as HTMLInputElement;
  expect([read.checked, write.checked, account.checked]).toEqual([true, false, false]);

  fireEvent.change(await within(region).findByLabelText("Token name"), { target: { value: "backup script" } });
  fireEvent.click(read);
  fireEvent.click(within(region).getByRole("button", { name: "Create token" }));
  expect(within(scopes).getByText("Choose at least one scope: messages:read, messages:write, account")).toBeTruthy();
  expect(scopes.getAttribute("aria-invalid")).toBe("true");
  expect(calls.some((c) => c.method === "POST")).toBe(false);

  fireEvent.click(account);
  fireEvent.click(write);
  fireEvent.click(read);
  expect(within(scopes).queryByText(/Choose at least one scope/)).toBeNull();
  fireEvent.click(within(region).getByRole("button", { name: "Create token" }));
  await within(region).findByLabelText("Your token “backup script”");
  expect(calls.find((c) => c.method === "POST")?.body).toEqual({
    name: "backup script",
    scopes: ["messages:read", "messages:write", "account"],
  });
  expect(within(region).getAllByRole("listitem")[0]!.textContent).toContain("May read messages, write messages, change the account");
  // The form starts again read-only.
  expect([read.checked, write.checked, account.checked]).toEqual([true, false, false]);

  reply = () =>
    fail(422, "request/validation", "Please check the highlighted fields.", {
      scopes: "Each scope must be one of messages:read, messages:write, account",
    });
  fireEvent.change(within(region).getByLabelText("Token name"), { target: { value: "another" } });
  fireEvent.click(within(region).getByRole("button", { name: "Create token" }));
  expect(await within(scopes).findByText("Each scope must be one of messages:read, messages:write, account")).toBeTruthy();
});

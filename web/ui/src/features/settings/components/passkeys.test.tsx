import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import { refusal, stubWebAuthn, unstubWebAuthn, serverDoesPasskeys } from "../../../testing/webauthn";
import type { Passkey } from "../api/passkeys";

beforeEach(serverDoesPasskeys);

afterEach(() => {
  cleanup();
  endSession();
  user.value = undefined;
  unstubWebAuthn();
  vi.unstubAllGlobals();
});

const march5 = Date.UTC(2026, 2, 5, 12, 0);
const april2 = Date.UTC(2026, 3, 2, 9, 0);
const day = (t: number) => new Intl.DateTimeFormat(undefined, { dateStyle: "long", timeZone: "Europe/Paris" }).format(t);

const laptop: Passkey = { id: "p1", name: "MacBook", createdAt: march5, lastUsedAt: april2, synced: true };
const phone: Passkey = { id: "p2", name: "Phone", createdAt: april2, lastUsedAt: april2, synced: false };

const ceremony = { options: { publicKey: { challenge: "AQID", rp: { name: "Sendlater" }, user: { id: "dTE", name: "ada", displayName: "Ada" } } }, state: "st-1" };
const security = { "GET me/sessions": () => ok({ sessions: [], signInAlerts: true }), "GET me/tokens": () => ok([]) };
const region = () => screen.findByRole("region", { name: "Passkeys" });
const recentLogin = () => fail(401, "auth/requires-recent-login", "Please sign in again to complete this action.");

test("each passkey with the day it was added and last used; one never used to sign in says so", async () => {
  signInAs({ timezone: "Europe/Paris" });
  mockApi({ ...security, "GET me/passkeys": () => ok([laptop, phone]) });
  renderRoute("/settings/security");

  const r = await region();
  const items = await within(r).findAllByRole("listitem");
  expect(items.map((li) => li.querySelector("strong")?.textContent)).toEqual(["MacBook", "Phone"]);
  expect(items[0]!.textContent).toContain(`Added on ${day(march5)} · Last used on ${day(april2)} · Synced`);
  expect(items[1]!.textContent).toContain("Not used to sign in yet");
  expect(within(items[0]!).getByRole("button", { name: "Rename MacBook" })).toBeTruthy();
  expect(within(items[0]!).getByRole("button", { name: "Remove MacBook" })).toBeTruthy();
  // The screen's one filled button is Add a passkey: the other cards' are outlined.
  const filled = screen.getAllByRole("button").filter((b) => b.className === "");
  expect(filled.map((b) => b.textContent)).toEqual(["Add a passkey"]);
});

test("no passkey: the empty state names the one next step", async () => {
  signInAs();
  mockApi({ ...security, "GET me/passkeys": () => ok([]) });
  renderRoute("/settings/security");
  const r = await region();
  expect(await within(r).findByText("No passkeys yet.")).toBeTruthy();
  expect(within(r).getByText(/then add it/)).toBeTruthy();
  expect(within(r).queryByRole("list")).toBeNull();
});

test("adding asks for a name, then for a recent sign-in, then the browser's prompt; the new passkey is listed", async () => {
  signInAs({}, "old-token");
  let recent = false;
  const webauthn = stubWebAuthn();
  const calls = mockApi({
    ...security,
    "GET me/passkeys": () => ok([]),
    "POST me/passkeys/begin": () => (recent ? ok(ceremony) : recentLogin()),
    "POST me/passkeys": () => ok({ id: "p9", name: "Test laptop", createdAt: april2, lastUsedAt: april2, synced: false }, 201),
    "POST auth/reauth": () => {
      recent = true;
      return ok({ idToken: "recent-token", expiresAt: Date.now() + 3_600_000 });
    },
  });
  renderRoute("/settings/security");
  const r = await region();

  fireEvent.click(within(r).getByRole("button", { name: "Add a passkey" }));
  expect(await within(r).findByText("Please enter a name for the passkey")).toBeTruthy();
  expect(calls.some((c) => c.path === "me/passkeys/begin")).toBe(false);

  fireEvent.change(within(r).getByLabelText("Passkey name"), { target: { value: " Test laptop " } });
  fireEvent.click(within(r).getByRole("button", { name: "Add a passkey" }));
  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));

  expect(await within(r).findByText("The passkey “Test laptop” is added: use it to sign in.")).toBeTruthy();
  expect(within(r).getByRole("listitem").textContent).toContain("Test laptop");
  const options = webauthn.create.mock.calls[0]![0];
  expect([...new Uint8Array(options.publicKey.challenge as ArrayBuffer)]).toEqual([1, 2, 3]);
  const add = calls.find((c) => c.method === "POST" && c.path === "me/passkeys")!;
  expect(add.body).toEqual({ state: "st-1", response: { id: "new-cred" }, name: "Test laptop" });
  expect(add.authorization).toBe("Bearer recent-token");
  expect((within(r).getByLabelText("Passkey name") as HTMLInputElement).value).toBe("");
});

test("a prompt closed or refused says so, and nothing is added", async () => {
  signInAs();
  stubWebAuthn({ create: () => refusal("NotAllowedError") });
  const calls = mockApi({ ...security, "GET me/passkeys": () => ok([]), "POST me/passkeys/begin": () => ok(ceremony) });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.change(within(r).getByLabelText("Passkey name"), { target: { value: "MacBook" } });
  fireEvent.click(within(r).getByRole("button", { name: "Add a passkey" }));
  expect((await within(r).findByRole("alert")).textContent).toMatch(/^The passkey was not added: the prompt was closed, timed out or refused/);
  expect(calls.some((c) => c.method === "POST" && c.path === "me/passkeys")).toBe(false);
  expect(within(r).getByText("No passkeys yet.")).toBeTruthy();
  expect((within(r).getByLabelText("Passkey name") as HTMLInputElement).value).toBe("MacBook");
});

test("a browser without passkeys says so before any request", async () => {
  signInAs();
  const calls = mockApi({ ...security, "GET me/passkeys": () => ok([]), "POST me/passkeys/begin": () => ok(ceremony) });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.change(within(r).getByLabelText("Passkey name"), { target: { value: "MacBook" } });
  fireEvent.click(within(r).getByRole("button", { name: "Add a passkey" }));
  expect((await within(r).findByRole("alert")).textContent).toMatch(/^This browser cannot use passkeys/);
  expect(calls.some((c) => c.method === "POST" && c.path === "me/passkeys")).toBe(false);
});

test("renaming in place: the server's name is shown; a name against the rule is named under the field", async () => {
  signInAs();
  const calls = mockApi({
    ...security,
    "GET me/passkeys": () => ok([laptop]),
    "PATCH me/passkeys/p1": (call) => ok({ ...laptop, name: (call.body as { name: string }).name }),
  });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.click(await within(r).findByRole("button", { name: "Rename MacBook" }));
  const field = within(r).getByLabelText("New name for “MacBook”");
  fireEvent.change(field, { target: { value: "   " } });
  fireEvent.click(within(r).getByRole("button", { name: "Save name" }));
  expect(await within(r).findByText("Please enter a name for the passkey")).toBeTruthy();
  fireEvent.change(field, { target: { value: "Work laptop " } });
  fireEvent.click(within(r).getByRole("button", { name: "Save name" }));
  expect(await within(r).findByText("The passkey is now named “Work laptop”.")).toBeTruthy();
  expect(within(r).getByRole("listitem").querySelector("strong")?.textContent).toBe("Work laptop");
  expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([{ name: "Work laptop" }]);

  // Cancel keeps the name.
  fireEvent.click(within(r).getByRole("button", { name: "Rename Work laptop" }));
  fireEvent.click(within(r).getByRole("button", { name: "Cancel" }));
  expect(within(r).getByRole("button", { name: "Rename Work laptop" })).toBeTruthy();
});

test("removing asks first, then for a recent sign-in; the passkey is gone and focus is on the heading", async () => {
  signInAs({}, "old-token");
  let recent = false;
  mockApi({
    ...security,
    "GET me/passkeys": () => ok([laptop, phone]),
    "DELETE me/passkeys/p1": () => (recent ? ok(null) : recentLogin()),
    "POST auth/reauth": () => {
      recent = true;
      return ok({ idToken: "recent-token", expiresAt: Date.now() + 3_600_000 });
    },
  });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.click(await within(r).findByRole("button", { name: "Remove MacBook" }));
  const confirm = await screen.findByRole("dialog", { name: "Remove “MacBook”?" });
  fireEvent.click(within(confirm).getByRole("button", { name: "Remove passkey" }));
  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));
  expect(await within(r).findByText("The passkey “MacBook” is removed: it no longer signs in to your account.")).toBeTruthy();
  expect(within(r).getAllByRole("listitem").map((li) => li.querySelector("strong")?.textContent)).toEqual(["Phone"]);
  await waitFor(() => expect(document.activeElement?.id).toBe("passkeys-title"));
});

test("a server without passkeys shows no Passkeys card and asks nothing about them", async () => {
  unstubWebAuthn();
  signInAs();
  const calls = mockApi(security);
  renderRoute("/settings/security");
  expect(await screen.findByRole("region", { name: "Where you are signed in" })).toBeTruthy();
  expect(screen.queryByRole("region", { name: "Passkeys" })).toBeNull();
  expect(calls.some((c) => c.path.startsWith("me/passkeys"))).toBe(false);
});

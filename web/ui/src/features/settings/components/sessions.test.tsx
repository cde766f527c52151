import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import type { SignedInSession } from "../api/account";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";

afterEach(() => {
  cleanup();
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

// 23:30 UTC is already the next day in Paris, the test user's time zone.
const march5 = Date.UTC(2026, 2, 5, 23, 30);
const april2 = Date.UTC(2026, 3, 2, 9, 0);
const time = (t: number) => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", timeZone: "Europe/Paris" }).format(t);

const here: SignedInSession = {
  id: "s1",
  device: "Firefox on Linux",
  browser: "Firefox",
  os: "Linux",
  network: "192.0.2.0/24",
  createdAt: march5,
  lastSeenAt: april2,
  current: true,
};
const phone: SignedInSession = { id: "s2", device: "Safari on iOS", network: "2001:db8:1::/48", createdAt: march5, lastSeenAt: march5, current: false };
const old: SignedInSession = { id: "s3", device: "Unknown device", createdAt: march5, lastSeenAt: march5, current: false };

const recentLogin = () => fail(401, "auth/requires-recent-login", "Please sign in again to complete this action.");
const list = (sessions: SignedInSession[], signInAlerts = true) => () => ok({ sessions, signInAlerts });
const security = { "GET me/tokens": () => ok([]) };
const region = () => screen.findByRole("region", { name: "Where you are signed in" });

test("each session with its device, network and times in the author's zone, this browser marked", async () => {
  signInAs({ timezone: "Europe/Paris" });
  mockApi({ ...security, "GET me/sessions": list([here, phone, old]) });
  renderRoute("/settings/security");

  const r = await region();
  const items = await within(r).findAllByRole("listitem");
  expect(items.map((li) => li.querySelector("strong")?.textContent)).toEqual(["Firefox on Linux", "Safari on iOS", "Unknown device"]);
  expect(items[0]!.textContent).toContain("This browser");
  expect(items[0]!.textContent).toContain(`Network 192.0.2.0/24 · Signed in ${time(march5)} · Last seen ${time(april2)}`);
  expect(items[1]!.textContent).not.toContain("This browser");
  expect(items[1]!.textContent).toContain("Network 2001:db8:1::/48");
  expect(items[2]!.textContent).toContain("Network unknown");
  expect(within(items[0]!).getByRole("button", { name: "Sign out of this browser" })).toBeTruthy();
  expect(within(items[1]!).getByRole("button", { name: `End the sign-in on Safari on iOS, last seen ${time(march5)}` })).toBeTruthy();
  expect((within(r).getByRole("switch") as HTMLInputElement).checked).toBe(true);
  // The access tokens are on the same screen.
  expect(await screen.findByRole("region", { name: "Access tokens" })).toBeTruthy();
  expect(screen.getByRole("link", { name: "Security" }).getAttribute("href")).toBe("/settings/security");
});

test("ending another sign-in asks first, then for the password when the sign-in is old, then it is gone", async () => {
  signInAs({}, "old-token");
  let recent = false;
  const calls = mockApi({
    ...security,
    "GET me/sessions": list([here, phone]),
    "DELETE me/sessions/s2": () => (recent ? ok(null) : recentLogin()),
    "POST auth/reauth": () => {
      recent = true;
      return ok({ idToken: "recent-token", expiresAt: Date.now() + 3_600_000 });
    },
  });
  renderRoute("/settings/security");
  const r = await region();

  fireEvent.click(await within(r).findByRole("button", { name: /^End the sign-in on Safari on iOS/ }));
  const confirm = await screen.findByRole("dialog", { name: "End the sign-in on Safari on iOS?" });
  fireEvent.click(within(confirm).getByRole("button", { name: "End sign-in" }));

  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in" }));

  expect(await within(r).findByText("The sign-in on Safari on iOS has ended.")).toBeTruthy();
  expect(within(r).getAllByRole("listitem").map((li) => li.querySelector("strong")?.textContent)).toEqual(["Firefox on Linux"]);
  expect(within(r).queryByRole("button", { name: "Sign out everywhere else" })).toBeNull();
  const deletes = calls.filter((c) => c.method === "DELETE");
  expect(deletes.map((c) => c.authorization)).toEqual(["Bearer old-token", "Bearer recent-token"]);
});

test("keeping it ends nothing", async () => {
  signInAs();
  const calls = mockApi({ ...security, "GET me/sessions": list([here, phone]) });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.click(await within(r).findByRole("button", { name: /^End the sign-in on Safari on iOS/ }));
  const confirm = await screen.findByRole("dialog", { name: "End the sign-in on Safari on iOS?" });
  fireEvent.click(within(confirm).getByRole("button", { name: "Keep it" }));
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(calls.filter((c) => c.method !== "GET")).toEqual([]);
  expect(within(r).getAllByRole("listitem")).toHaveLength(2);
});

test("sign out everywhere else keeps this browser only", async () => {
  signInAs();
  const calls = mockApi({
    ...security,
    "GET me/sessions": list([here, phone, old]),
    "POST me/sessions/revoke-others": () => ok({ revoked: 2 }),
  });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.click(await within(r).findByRole("button", { name: "Sign out everywhere else" }));
  const confirm = await screen.findByRole("dialog", { name: "Sign out everywhere else?" });
  expect(confirm.textContent).toContain("Access tokens keep working");
  fireEvent.click(within(confirm).getByRole("button", { name: "Sign out others" }));
  expect(await within(r).findByText("You were signed out of 2 other sign-ins.")).toBeTruthy();
  expect(within(r).getAllByRole("listitem").map((li) => li.querySelector("strong")?.textContent)).toEqual(["Firefox on Linux"]);
  expect(calls.some((c) => c.method === "POST" && c.path === "me/sessions/revoke-others")).toBe(true);
});

test("a sign-in ended elsewhere already leaves the list with the server's message", async () => {
  signInAs();
  mockApi({
    ...security,
    "GET me/sessions": list([here, phone]),
    "DELETE me/sessions/s2": () => fail(404, "request/not-found", "The session could not be found."),
  });
  renderRoute("/settings/security");
  const r = await region();
  fireEvent.click(await within(r).findByRole("button", { name: /^End the sign-in on Safari on iOS/ }));
  fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "End sign-in" }));
  expect((await within(r).findByRole("alert")).textContent).toBe("The session could not be found.");
  expect(within(r).getAllByRole("listitem")).toHaveLength(1);
});

test("the new-device email switches off and on", async () => {
  signInAs();
  const calls = mockApi({
    ...security,
    "GET me/sessions": list([here], true),
    "PUT me/sign-in-alerts": (call) => ok({ signInAlerts: (call.body as { signInAlerts: boolean }).signInAlerts }),
  });
  renderRoute("/settings/security");
  const r = await region();
  const toggle = (await within(r).findByRole("switch", { name: /Email me when my account is signed in to from a new device/ })) as HTMLInputElement;
  expect(toggle.checked).toBe(true);
  fireEvent.click(toggle);
  await waitFor(() => expect(toggle.checked).toBe(false));
  fireEvent.click(toggle);
  await waitFor(() => expect(toggle.checked).toBe(true));
  expect(calls.filter((c) => c.method === "PUT").map((c) => c.body)).toEqual([{ signInAlerts: false }, { signInAlerts: true }]);
});

import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import type { DeviceRequest } from "../api/device";

afterEach(() => {
  cleanup();
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

const asked = Date.UTC(2026, 2, 5, 9, 30);
const request: DeviceRequest = {
  clientName: "sendlater on tower",
  device: "Sendlater CLI on Linux",
  network: "198.51.100.0/24",
  createdAt: asked,
  expiresAt: asked + 600_000,
  scopes: ["messages:read", "messages:write"],
};
const time = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", timeZone: "Europe/Paris" }).format(asked);

test("the terminal's link: its code looked up, what asks shown, approved once", async () => {
  signInAs({ timezone: "Europe/Paris" });
  const calls = mockApi({ "POST me/device": () => ok(request), "POST me/device/approve": () => ok(request) });
  renderRoute("/device?code=bcdf-ghjk");

  expect(await screen.findByRole("heading", { name: "Sign in sendlater on tower?" })).toBeTruthy();
  expect(screen.getByLabelText("The code").textContent).toBe("BCDF-GHJK");
  const facts = document.querySelector(".device-facts")!.textContent;
  for (const want of ["Sendlater CLI on Linux", "198.51.100.0/24", time, "read and write your messages, but not change your account"]) {
    expect(facts).toContain(want);
  }
  await waitFor(() => expect(document.title).toBe("Sign in a terminal - Sendlater"));
  fireEvent.click(screen.getByRole("button", { name: "Approve" }));
  expect(await screen.findByText(/sendlater on tower is signed in/)).toBeTruthy();
  expect(screen.getByRole("link", { name: "Settings → Security" }).getAttribute("href")).toBe("/settings/security");
  expect(calls.map((c) => `${c.method} ${c.path} ${JSON.stringify(c.body)}`)).toEqual([
    'POST me/device {"userCode":"BCDF-GHJK"}',
    'POST me/device/approve {"userCode":"BCDF-GHJK"}',
  ]);
});

test("a typed code: a wrong one is named under the field, the right one denied", async () => {
  signInAs();
  const calls = mockApi({
    "POST me/device": (call) =>
      (call.body as { userCode: string }).userCode === "BCDF-GHJK"
        ? ok(request)
        : fail(400, "device/invalid_user_code", "This code is not waiting for approval.", { userCode: "No request waits with this code" }),
    "POST me/device/deny": () => ok(null),
  });
  renderRoute("/device");

  const field = await screen.findByLabelText("Code from your terminal");
  fireEvent.click(screen.getByRole("button", { name: "Continue" }));
  expect(await screen.findByText("Please enter the code your terminal shows")).toBeTruthy();
  expect(calls).toHaveLength(0);
  fireEvent.change(field, { target: { value: "BBBB-BBBB" } });
  fireEvent.click(screen.getByRole("button", { name: "Continue" }));
  expect(await screen.findByText("No request waits with this code")).toBeTruthy();
  expect(field.getAttribute("aria-invalid")).toBe("true");
  fireEvent.change(field, { target: { value: "BCDF-GHJK" } });
  fireEvent.click(screen.getByRole("button", { name: "Continue" }));
  fireEvent.click(await screen.findByRole("button", { name: "Deny" }));
  expect(await screen.findByText(/Denied: nothing was signed in/)).toBeTruthy();
  expect(calls.at(-1)).toMatchObject({ method: "POST", path: "me/device/deny", body: { userCode: "BCDF-GHJK" } });
});

test("signed out, the page sends to sign-in and back with the code", async () => {
  user.value = null;
  mockApi({});
  const { router } = renderRoute("/device?code=BCDF-GHJK");
  await waitFor(() => expect(router.state.location.pathname).toBe("/auth/signin"));
  expect(new URLSearchParams(router.state.location.search).get("next")).toBe("/device?code=BCDF-GHJK");
});

test("an old sign-in approves nothing: signing in again comes back with the code", async () => {
  signInAs();
  const calls = mockApi({
    "POST me/device": () => ok(request),
    "POST me/device/approve": () => fail(401, "auth/requires-recent-login", "Please sign in again to complete this action."),
    "POST auth/signout": () => ok(null),
  });
  const { router } = renderRoute("/device");
  fireEvent.change(await screen.findByLabelText("Code from your terminal"), { target: { value: "bcdfghjk" } });
  fireEvent.click(screen.getByRole("button", { name: "Continue" }));
  fireEvent.click(await screen.findByRole("button", { name: "Approve" }));
  expect(await screen.findByText(/more than 5 minutes ago/)).toBeTruthy();
  expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
  fireEvent.click(screen.getByRole("button", { name: "Sign in again" }));
  await waitFor(() => expect(router.state.location.pathname).toBe("/auth/signin"));
  expect(new URLSearchParams(router.state.location.search).get("next")).toBe("/device?code=BCDF-GHJK");
  expect(calls.some((c) => c.path === "auth/signout")).toBe(true);
});

import { act, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../lib/auth";
import { mockApi, ok } from "../../testing/api-mock";
import { renderRoute } from "../../testing/render-route";
import { signInAs } from "../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

test.each(["/dashboard", "/settings/general"])("%s shows a spinner while the user is unknown", async (path) => {
  mockApi({ "GET messages": () => ok([]) });
  renderRoute(path);

  await waitFor(() => expect(document.querySelector('[aria-busy="true"][aria-label="Loading"]')).toBeTruthy());
  expect(screen.queryByRole("heading", { level: 1 })).toBeNull();

  act(() => signInAs());
  expect(await screen.findByRole("heading", { level: 1 })).toBeTruthy();
});

test("signed out, the dashboard replaces itself with sign in", async () => {
  user.value = null;
  const { router } = renderRoute("/dashboard");

  expect(await screen.findByRole("heading", { name: "Welcome back" })).toBeTruthy();
  expect(router.state.location.pathname).toBe("/auth/signin");
  expect(router.state.historyAction).toBe("REPLACE");
});

test("signed out, settings come back after sign in", async () => {
  user.value = null;
  const { router } = renderRoute("/settings/password");

  await screen.findByRole("heading", { name: "Welcome back" });
  expect(router.state.location.search).toBe("?next=/settings/password");
});

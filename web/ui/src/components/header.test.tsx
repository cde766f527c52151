import { act, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { user, type SessionUser } from "../lib/auth";
import { renderRoute } from "../testing/render-route";

afterEach(() => {
  user.value = undefined;
});

test("signed out, the header offers Sign in and the theme toggle", async () => {
  user.value = null;
  renderRoute("/");

  await screen.findByRole("heading", { level: 1 });
  const signIn = screen.getAllByRole("link", { name: "Sign in" });
  expect(signIn[0]?.getAttribute("href")).toBe("/auth/signin");
  expect(screen.getByRole("button", { name: /Switch to (dark|light) theme/ })).toBeTruthy();
});

test("signed in, the account menu shows the name, or Account without one", async () => {
  user.value = { uid: "u1", name: "Ada" } as SessionUser;
  renderRoute("/");

  expect(await screen.findByText("Ada")).toBeTruthy();
  expect(screen.getByRole("link", { name: "Dashboard" }).getAttribute("href")).toBe("/dashboard");
  expect(screen.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe("/settings/general");
  expect(screen.getByRole("button", { name: "Signout" })).toBeTruthy();

  act(() => {
    user.value = { uid: "u1", name: "" } as SessionUser;
  });
  expect(screen.getByText("Account")).toBeTruthy();
});

test("the drawer holds the same links and closes", async () => {
  user.value = { uid: "u1", name: "Ada" } as SessionUser;
  renderRoute("/");

  fireEvent.click(await screen.findByRole("button", { name: "Open menu" }));
  const drawer = screen.getByRole("complementary", { name: "Menu" });
  expect(within(drawer).getByRole("link", { name: "Dashboard" })).toBeTruthy();
  expect(within(drawer).getByRole("link", { name: "Settings" })).toBeTruthy();
  expect(within(drawer).getByRole("button", { name: "Signout" })).toBeTruthy();

  fireEvent.click(within(drawer).getByRole("button", { name: "Close menu" }));
  expect(screen.queryByRole("complementary", { name: "Menu" })).toBeNull();
});

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
  const drawer = await screen.findByRole("dialog", { name: "Menu" });
  for (const name of ["Pricing", "FAQ", "About", "Dashboard", "Settings"]) {
    expect(within(drawer).getByRole("link", { name })).toBeTruthy();
  }
  expect(within(drawer).getByRole("button", { name: "Signout" })).toBeTruthy();

  fireEvent.click(within(drawer).getByRole("button", { name: "Close menu" }));
  expect(screen.queryByRole("dialog", { name: "Menu" })).toBeNull();
});

test("the drawer is modal: focus moves in and stays, the page behind is inert, Escape closes and focus returns", async () => {
  user.value = null;
  renderRoute("/");
  const open = await screen.findByRole("button", { name: "Open menu" });
  open.focus();

  fireEvent.click(open);
  const drawer = await screen.findByRole("dialog", { name: "Menu" });
  const close = within(drawer).getByRole("button", { name: "Close menu" });
  const signIn = within(drawer).getByRole("link", { name: "Sign in" });
  expect(drawer.getAttribute("aria-modal")).toBe("true");
  expect(document.activeElement).toBe(close);
  expect(open.closest("[inert]")).not.toBeNull();

  signIn.focus();
  fireEvent.keyDown(document, { key: "Tab" });
  expect(document.activeElement).toBe(close);
  fireEvent.keyDown(document, { key: "Tab", shiftKey: true });
  expect(document.activeElement).toBe(signIn);

  fireEvent.keyDown(document, { key: "Escape" });
  expect(screen.queryByRole("dialog", { name: "Menu" })).toBeNull();
  expect(document.activeElement).toBe(open);
  expect(open.closest("[inert]")).toBeNull();
});

import { act, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { user, type SessionUser } from "../lib/auth";
import { renderRoute } from "../testing/render-route";

afterEach(() => {
  user.value = undefined;
});

test("signed out, the header offers Sign in, Sign up and the theme toggle", async () => {
  user.value = null;
  renderRoute("/");

  await screen.findByRole("heading", { level: 1 });
  const banner = screen.getByRole("banner");
  expect(within(banner).getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/auth/signin");
  expect(within(banner).getByRole("link", { name: "Sign up" }).getAttribute("href")).toBe("/auth/signup");
  expect(within(banner).getByRole("button", { name: /Switch to (dark|light) theme/ })).toBeTruthy();
});

test("the theme toggle and the menu button are labelled icons, not glyphs", async () => {
  user.value = null;
  renderRoute("/");

  const toggle = await screen.findByRole("button", { name: /Switch to (dark|light) theme/ });
  const menu = screen.getByRole("button", { name: "Open menu" });
  for (const button of [toggle, menu]) {
    expect(button.textContent).toBe("");
    expect(button.querySelector("svg")?.getAttribute("aria-hidden")).toBe("true");
  }
  fireEvent.click(menu);
  const close = within(await screen.findByRole("dialog", { name: "Menu" })).getByRole("button", { name: "Close menu" });
  expect(close.textContent).toBe("");
  expect(close.querySelector("svg")?.getAttribute("aria-hidden")).toBe("true");
});

test("signed in, the account menu shows the name, or Account without one", async () => {
  user.value = { uid: "u1", name: "Ada" } as SessionUser;
  renderRoute("/");

  expect(await screen.findByText("Ada")).toBeTruthy();
  expect(screen.getByRole("link", { name: "Dashboard" }).getAttribute("href")).toBe("/dashboard");
  expect(screen.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe("/settings/general");
  expect(screen.getByRole("button", { name: "Sign out" })).toBeTruthy();

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
  expect(within(drawer).getByRole("button", { name: "Sign out" })).toBeTruthy();

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
  expect(within(drawer).getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/auth/signin");
  // Sign up is the drawer's last link: Tab from it goes round to the close button.
  const signUp = within(drawer).getByRole("link", { name: "Sign up" });
  expect(signUp.getAttribute("href")).toBe("/auth/signup");
  expect(drawer.getAttribute("aria-modal")).toBe("true");
  expect(document.activeElement).toBe(close);
  expect(open.closest("[inert]")).not.toBeNull();

  signUp.focus();
  fireEvent.keyDown(document, { key: "Tab" });
  expect(document.activeElement).toBe(close);
  fireEvent.keyDown(document, { key: "Tab", shiftKey: true });
  expect(document.activeElement).toBe(signUp);

  fireEvent.keyDown(document, { key: "Escape" });
  expect(screen.queryByRole("dialog", { name: "Menu" })).toBeNull();
  expect(document.activeElement).toBe(open);
  expect(open.closest("[inert]")).toBeNull();
});

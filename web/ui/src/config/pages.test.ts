import { expect, test } from "vitest";
import { notFoundHead, pageHead, paramValue, pathOf } from "./pages";

test("a parameter outside the page's values falls back, or is no page at all", () => {
  expect(paramValue("auth", "signin")).toBe("signin");
  expect(paramValue("auth", "nonsense")).toBe("signup");
  expect(paramValue("legal", undefined)).toBe("terms-of-service");
  expect(paramValue("settings", "billing")).toBe("billing");
  expect(paramValue("purchase", "gold")).toBeUndefined();
  expect(paramValue("postpone", "m1")).toBe("m1");
});

test("each page's head: its title, its description, its canonical path, noindex for private pages", () => {
  expect(pageHead("home")).toMatchObject({ title: "Sendlater", canonical: "/", noindex: false });
  expect(pageHead("auth", "signin")).toMatchObject({ title: "Welcome back - Sendlater", canonical: "/auth/signin" });
  expect(pageHead("legal", "privacy-policy").canonical).toBe("/legal/privacy-policy");
  expect(pageHead("dashboard")).toMatchObject({ title: "Dashboard - Sendlater", noindex: true });
  expect(pageHead("pricing").description).toMatch(/Pro for 10 EUR a month/);
  expect(notFoundHead("/x")).toEqual({
    title: "Page not found - Sendlater",
    description: "Send important messages when the time is right.",
    canonical: "/x",
    noindex: true,
  });
  expect(pathOf("purchase")).toBe("/purchase/:plan");
});

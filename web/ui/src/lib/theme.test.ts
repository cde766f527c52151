import { afterEach, expect, test } from "vitest";
import { applyTheme, theme, themePreference, toggleTheme } from "./theme";

afterEach(() => {
  themePreference.value = null;
});

test("follows the system colour scheme while no preference is stored", () => {
  const stop = applyTheme();

  expect(theme.value).toBe("light");
  expect(document.documentElement.dataset.theme).toBe("light");
  stop();
});

test("toggling stores the preference and sets data-theme for Pico", () => {
  const stop = applyTheme();

  toggleTheme();
  expect(localStorage.getItem("theme")).toBe("dark");
  expect(document.documentElement.dataset.theme).toBe("dark");

  toggleTheme();
  expect(localStorage.getItem("theme")).toBe("light");
  expect(document.documentElement.dataset.theme).toBe("light");
  stop();
});

import { computed, effect, signal } from "@preact/signals-react";
import { darkQuery, storedTheme, systemTheme as readSystemTheme, themeStorageKey, type Theme } from "./theme-preference";

export type { Theme };

/** The user's explicit choice; null follows the system colour scheme. */
export const themePreference = signal<Theme | null>(storedTheme());
const systemTheme = signal<Theme>(readSystemTheme());

export const theme = computed<Theme>(() => themePreference.value ?? systemTheme.value);

export function toggleTheme() {
  const next = theme.value === "dark" ? "light" : "dark";
  localStorage.setItem(themeStorageKey, next);
  themePreference.value = next;
}

/** Keeps <html data-theme> (read by Pico) in step with the theme; returns a stop function. */
export function applyTheme() {
  const media = matchMedia(darkQuery);
  const onSystemChange = (event: MediaQueryListEvent) => {
    systemTheme.value = event.matches ? "dark" : "light";
  };
  media.addEventListener("change", onSystemChange);
  const stopEffect = effect(() => {
    document.documentElement.dataset.theme = theme.value;
  });
  return () => {
    media.removeEventListener("change", onSystemChange);
    stopEffect();
  };
}

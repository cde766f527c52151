import { computed, effect, signal } from "@preact/signals-react";

export type Theme = "light" | "dark";

const storageKey = "theme";
const darkQuery = "(prefers-color-scheme: dark)";

const readPreference = (): Theme | null => {
  const stored = localStorage.getItem(storageKey);
  return stored === "light" || stored === "dark" ? stored : null;
};

/** The user's explicit choice; null follows the system colour scheme. */
export const themePreference = signal<Theme | null>(readPreference());
const systemTheme = signal<Theme>(matchMedia(darkQuery).matches ? "dark" : "light");

export const theme = computed<Theme>(() => themePreference.value ?? systemTheme.value);

export function toggleTheme() {
  const next = theme.value === "dark" ? "light" : "dark";
  localStorage.setItem(storageKey, next);
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

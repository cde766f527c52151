// The theme as the browser holds it, without React or signals: read by the first script before
// the app's code arrives (main.tsx) and by lib/theme.ts. Each guard lets the build's prerender
// (Node, no window) import it.

export type Theme = "light" | "dark";

export const themeStorageKey = "theme";
export const darkQuery = "(prefers-color-scheme: dark)";

/** The user's explicit choice, or null to follow the system. */
export function storedTheme(): Theme | null {
  if (typeof localStorage === "undefined") return null;
  const stored = localStorage.getItem(themeStorageKey);
  return stored === "light" || stored === "dark" ? stored : null;
}

/** The system's colour scheme (light where it cannot be known, as in the prerender). */
export function systemTheme(): Theme {
  return typeof matchMedia === "function" && matchMedia(darkQuery).matches ? "dark" : "light";
}

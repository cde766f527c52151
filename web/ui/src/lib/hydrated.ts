import { useSyncExternalStore } from "react";

const never = () => () => undefined;

/**
 * False while React hydrates HTML the build prerendered (and in that prerender), true on every
 * render after. What only the browser knows (the theme a user chose) waits for true, so the
 * first render matches the HTML and React then brings it up to date (React leaves a differing
 * attribute of the HTML as it is). A page the browser renders itself gets true at once.
 */
export function useHydrated() {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}

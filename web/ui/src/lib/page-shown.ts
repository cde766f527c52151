import { useEffect } from "react";

let waiting: (() => void) | undefined;

/** Calls done once, when the first page is on screen: hydrated (or rendered) whole, its effects run. */
export function whenPageShown(done: () => void) {
  waiting = done;
}

/**
 * Rendered beside the page, inside its Suspense boundary (RootLayout): its effect runs once the
 * page's own did, which, on a prerendered page, is when React hydrated the boundary, a pass after
 * the rest of the app (docs/web.md, "First paint").
 */
export function PageShown() {
  useEffect(() => {
    const done = waiting;
    waiting = undefined;
    done?.();
  }, []);
  return null;
}

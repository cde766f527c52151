import { effect } from "@preact/signals-react";
import { publicPage } from "./head";
import { sendPageView } from "./page-view-request";

export { pageViewsEndpoint } from "./page-view-request";

/**
 * Tells the server's first-party counter which public page is on show: on load and on every
 * route change to another public page, its canonical path and nothing else (no cookie, no
 * token, no user). Signed-in pages, email links and 404s are not counted. `counted` is the
 * path the first script already counted for this load (main.tsx): not counted twice.
 */
export function startPageViews(counted?: string) {
  let skip = counted;
  return effect(() => {
    const path = publicPage.value;
    if (path === undefined) return;
    if (path === skip) {
      skip = undefined;
      return;
    }
    skip = undefined;
    sendPageView(path);
  });
}

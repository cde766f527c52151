import { effect } from "@preact/signals-react";
import { publicPage } from "./head";

/** Where the server counts page views (docs/api.md "Page views"). */
export const pageViewsEndpoint = "/api/pageviews";

/**
 * Tells the server's first-party counter which public page is on show: on load and on every
 * route change to another public page, its canonical path and nothing else (no cookie, no
 * token, no user). Signed-in pages, email links and 404s are not counted. A lost view is
 * not worth a retry or an error on the console.
 */
export function startPageViews() {
  return effect(() => {
    const path = publicPage.value;
    if (path === undefined) return;
    void fetch(pageViewsEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ path }),
      credentials: "omit",
    })
      // Read to the end: a reply left unread keeps its request open in Chromium.
      .then((reply) => reply.arrayBuffer())
      .catch(() => undefined);
  });
}

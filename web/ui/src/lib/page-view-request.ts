/** Where the server counts page views (docs/api.md "Page views"). */
export const pageViewsEndpoint = "/api/pageviews";

/**
 * Counts one view of the public page at path (its canonical path, nothing else: no cookie, no
 * token, no user). A lost view is not worth a retry or an error on the console. No React here:
 * the first script sends the first view before the app's code is loaded (main.tsx).
 */
export function sendPageView(path: string) {
  void fetch(pageViewsEndpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ path }),
    credentials: "omit",
  })
    // Read to the end: a reply left unread keeps its request open in Chromium.
    .then((reply) => reply.arrayBuffer())
    .catch(() => undefined);
}

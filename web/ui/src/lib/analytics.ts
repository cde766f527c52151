import { effect } from "@preact/signals-react";
import { user } from "./auth";
import { pagePath } from "./page-path";
import { loadScript, type PublicSettings } from "./public-settings";

// SPEC.md section 9: the queue drains every 3 seconds; the service's script gets 10 seconds to load.
export const drainEvery = 3000;
export const pluginWait = 10_000;

type Tracker = { identify: (id: string) => void; track: (props: (page: object) => object) => void };
type AnalyticsEvent = { kind: "identify"; uid: string } | { kind: "page"; path: string };

declare global {
  interface Window {
    umami?: Tracker;
  }
}

/**
 * Loads the configured (Umami-compatible) analytics script with its own tracking off, and
 * sends it what SPEC.md section 4 asks: the user's uid once signed in, and a page view on load
 * and on every route change. Events wait in a queue drained every 3 seconds; if the script is
 * not there after 10 seconds, the queue is dropped and nothing more is recorded.
 */
export function startAnalytics({ scriptUrl, websiteId }: NonNullable<PublicSettings["analytics"]>) {
  loadScript(scriptUrl, { "data-website-id": websiteId, "data-auto-track": "false" });
  let queue: AnalyticsEvent[] = [];
  const started = Date.now();
  let identified: string | undefined;

  const stopUser = effect(() => {
    const uid = user.value?.uid;
    if (uid && uid !== identified) {
      identified = uid;
      queue.push({ kind: "identify", uid });
    }
  });
  const stopPages = effect(() => {
    const path = pagePath.value;
    if (path !== undefined) queue.push({ kind: "page", path });
  });

  const stop = () => {
    clearInterval(timer);
    stopUser();
    stopPages();
    queue = [];
  };
  const timer = setInterval(() => {
    const tracker = window.umami;
    if (!tracker) {
      if (Date.now() - started >= pluginWait) stop();
      return;
    }
    for (const event of queue.splice(0)) {
      if (event.kind === "identify") tracker.identify(event.uid);
      else tracker.track((page) => ({ ...page, url: event.path }));
    }
  }, drainEvery);
  return stop;
}

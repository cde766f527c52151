import { StrictMode } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { App } from "./app/app";
import { loadPage } from "./app/routes";
import { connectApiClient, loadSession } from "./lib/auth";
import { whenPageShown } from "./lib/page-shown";
import { startPageViews } from "./lib/page-views";
import { readPublicSettings } from "./lib/public-settings";
import { applyTheme } from "./lib/theme";

/**
 * Starts the app in root: hydrates the page the build prerendered there (scripts/prerender.mjs),
 * or renders into an empty root. `counted` is the page view main.tsx already sent; `onScreen` is
 * called once the page is on screen (hydrated whole, lib/page-shown.ts).
 */
export function boot(root: HTMLElement, counted: string | undefined, onScreen: () => void = () => undefined) {
  applyTheme();
  connectApiClient();
  // A prerendered page hydrates as the build rendered it, signed out: the session is loaded once
  // the page's hydration committed, so that a reply arriving meanwhile cannot change what React
  // compares with the HTML (React error 418). A page rendered here loads it at once.
  const prerendered = Boolean(root.dataset.prerendered);
  if (!prerendered) void loadSession();
  const shown = () => {
    if (prerendered) void loadSession();
    onScreen();
  };

  // Third parties only when the server names them, each in its own chunk.
  const settings = readPublicSettings();
  if (settings.analytics) void import("./lib/analytics").then((m) => m.startAnalytics(settings.analytics!));
  if (settings.chat) void import("./lib/chat").then((m) => m.startChat(settings.chat!));
  if (settings.pageViews) startPageViews(counted);

  whenPageShown(shown);
  const app = (
    <StrictMode>
      <App />
    </StrictMode>
  );
  // The page's own chunk first: its boundary then hydrates without waiting on the network, and
  // onScreen (keeping what was typed, clicking again) comes right after.
  if (prerendered) {
    void loadPage(location.pathname)
      .catch(() => undefined) // React.lazy loads it again, and shows the error if it fails
      .then(() => hydrateRoot(root, app));
  } else createRoot(root).render(app);
}

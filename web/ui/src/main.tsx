import "./styles/pico.scss";
import "./styles/app.css";
import { sendPageView } from "./lib/page-view-request";
import { readPublicSettings } from "./lib/public-settings";
import { hasSessionHint } from "./lib/session-hint";
import { storedTheme, systemTheme } from "./lib/theme-preference";

// The first script: no React. The server sent the page's HTML prerendered where the build made it
// (scripts/prerender.mjs, web/spa.go); this shows it in the user's theme, counts the view, and
// loads the app (boot.tsx) at once, or, on a page that is complete as it is, on the visitor's
// first sign of interacting with it (docs/web.md, "First paint").

const root = document.getElementById("root")!;
const settings = readPublicSettings();

// A choice made on the theme button, else the system's scheme; lib/theme.ts keeps it current once the app runs.
const theme = storedTheme() ?? systemTheme();
document.documentElement.dataset.theme = theme;

// The public page the server served, by its canonical path (web/meta.go): counted, and the app
// does not count it again. Sent in a task of its own, as is the cookie read below: each is a
// call the browser answers synchronously, tens of milliseconds on a busy machine, and one long
// task blocks the page more than two short ones (Lighthouse's total blocking time).
let counted: string | undefined;
const canonical = document.querySelector<HTMLLinkElement>('link[rel="canonical"]');
if (settings.pageViews && canonical && !document.querySelector('meta[name="robots"][content="noindex"]')) {
  const path = new URL(canonical.href).pathname;
  counted = path;
  setTimeout(() => sendPageView(path));
}

const interactions = ["pointerover", "pointerdown", "touchstart", "keydown", "focusin"] as const;
let clicked: HTMLElement | undefined;
let submitted: HTMLFormElement | undefined;
let started = false;

/**
 * Before the page is hydrated: a button does nothing yet (remembered, clicked again once the
 * page is), and a form is not sent as a plain POST but again once it is (Enter in a field; a
 * button's click is clicked again instead). The fields take typing all along (keepTyped).
 */
function early(event: Event) {
  const target = event.target instanceof Element ? event.target : null;
  // Until the page is hydrated, React may see a click or a submit too (the header hydrates a
  // pass before the page): it is the app's only after keepTyped, so React never sees it here.
  if (event.type === "submit") {
    event.preventDefault();
    event.stopPropagation();
    const { submitter } = event as SubmitEvent;
    // Sent by the button just clicked: clicking it again sends it; else (Enter) it is sent again.
    if (target instanceof HTMLFormElement && submitter !== clicked) submitted = target;
    start();
  } else if (event.type === "click") {
    const button = target?.closest("button");
    if (button) {
      clicked = button;
      event.preventDefault();
      event.stopPropagation();
    }
  } else {
    start();
  }
}

/**
 * What a visitor typed into a prerendered field before React hydrated it stays on screen, but
 * React's state still holds the HTML's value (after hydration a field's defaultValue is that
 * state): each such field tells React once, as the browser does for a keystroke, with the value
 * React last saw set first through React's own value property so that it sees a change.
 */
function keepTyped(within: HTMLElement) {
  for (const field of within.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input, textarea")) {
    if (field.type === "checkbox" || field.type === "radio" || field.value === field.defaultValue) continue;
    const typed = field.value;
    const setValue = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), "value")?.set;
    if (!setValue) continue;
    field.value = field.defaultValue;
    setValue.call(field, typed);
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

function start() {
  if (started) return;
  started = true;
  for (const type of interactions) window.removeEventListener(type, early, true);
  void import("./boot").then(({ boot }) =>
    boot(root, counted, () => {
      // Until now a click or a submit reached no handler of the app's: from here on they do.
      for (const type of ["click", "submit"]) window.removeEventListener(type, early, true);
      keepTyped(root);
      // After React applied what keepTyped told it (a keystroke's update is done within its task).
      setTimeout(() => {
        if (clicked?.isConnected) clicked.click();
        if (submitted?.isConnected) submitted.requestSubmit();
        clicked = submitted = undefined;
      });
    }),
  );
}

// The app at once unless this page is whole without it, or a form that takes typing without it:
// prerendered (static, or a form without the social buttons only the app draws and without
// passkeys, whose autofill must be asked for as the page opens), in the light theme the prerender used, for a visitor with no
// session (the server's readable hint cookie, docs/identity.md, read in a task of its own) and
// no third party to start.
const deferrable =
  (root.dataset.prerendered === "static" || (root.dataset.prerendered === "form" && !settings.socialSignIn && !settings.passkeys)) &&
  theme === "light" &&
  !settings.analytics &&
  !settings.chat;
if (root.dataset.prerendered) {
  for (const type of ["click", "submit"]) window.addEventListener(type, early, true);
}
if (deferrable) {
  for (const type of interactions) window.addEventListener(type, early, { capture: true, passive: true });
  setTimeout(() => hasSessionHint() && start());
} else {
  start();
}

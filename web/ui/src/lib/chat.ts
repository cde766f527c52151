import { effect } from "@preact/signals-react";
import { user } from "./auth";
import { loadScript, type PublicSettings } from "./public-settings";

type Command = [string, string, unknown[]?];

declare global {
  interface Window {
    $crisp?: Command[];
    CRISP_WEBSITE_ID?: string;
  }
}

/**
 * Loads the configured (Crisp-compatible) chat widget and keeps it told who is there: the
 * signed-in user's email and name, and a fresh session after sign-out (SPEC.md section 7).
 * Commands pushed before the script arrives wait in its queue.
 */
export function startChat({ scriptUrl, websiteId }: NonNullable<PublicSettings["chat"]>) {
  window.$crisp = window.$crisp ?? [];
  window.CRISP_WEBSITE_ID = websiteId;
  loadScript(scriptUrl);
  let signedIn = false;
  return effect(() => {
    const current = user.value;
    const queue = window.$crisp!;
    if (current) {
      signedIn = true;
      queue.push(["set", "user:email", [current.email]]);
      if (current.name) queue.push(["set", "user:nickname", [current.name]]);
    } else if (current === null && signedIn) {
      signedIn = false;
      queue.push(["do", "session:reset"]);
    }
  });
}

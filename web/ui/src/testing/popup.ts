import { vi } from "vitest";
import type { PopupResult } from "../lib/social";

/** Stubs window.open with a popup window the test closes and sees sent somewhere. */
export function stubPopup() {
  const popup = {
    closed: false,
    location: { assign: vi.fn() },
    close: vi.fn(() => {
      popup.closed = true;
    }),
  };
  const open = vi.fn(() => popup);
  vi.stubGlobal("open", open);
  return { popup, open };
}

/** Hands a result over as the popup's last page does (web/popup/popup.js). */
export function finishPopup(result: Partial<PopupResult> & Pick<PopupResult, "provider">) {
  const channel = new BroadcastChannel("sendlater-oauth");
  channel.postMessage({ intent: "", status: "success", message: "", ...result });
  channel.close();
}

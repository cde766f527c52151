import { useEffect, useRef, useState } from "react";
import { api } from "./api-client";
import type { SecondFactorChallenge } from "./auth";

// Social sign-in, shared by signing in, linking a provider in the settings and
// signing in again before a sensitive action. The popup's last page (served by the API, its
// script /oauth-popup.js) posts its result on a BroadcastChannel of this origin: unlike
// window.opener, that still reaches this page when a provider's page cut the popup off from
// it (Cross-Origin-Opener-Policy).

/**
 * What the popup hands over: the API's envelope status, code and message, for which provider and
 * intent; for an account with a second factor, status "second-factor" and the challenge.
 */
export type PopupResult = {
  provider: string;
  intent: "" | "link" | "reauth";
  status: "success" | "error" | "second-factor";
  code?: string;
  message: string;
  secondFactor?: SecondFactorChallenge;
};

const channelName = "sendlater-oauth";
const windowName = "sendlater-oauth";
const features = "popup,width=500,height=650";

/** Listens to the popups' results until the returned function is called. */
export function onPopupResult(listener: (result: PopupResult) => void) {
  if (typeof BroadcastChannel === "undefined") return () => undefined;
  const channel = new BroadcastChannel(channelName);
  channel.addEventListener("message", (event: MessageEvent<PopupResult>) => listener(event.data));
  return () => channel.close();
}

export class PopupBlockedError extends Error {
  constructor() {
    super("The sign-in window could not open: click again, or allow popups for this site.");
    this.name = "PopupBlockedError";
  }
}

/**
 * Opens the popup, within the click that asked for it so that no popup blocker stops it: at
 * url, or blank until `go` sends it where a request said (linking and signing in again get
 * their address from the API). `closed` tells whether the person closed it.
 */
export function openPopup(url = "about:blank") {
  const popup = window.open(url, windowName, features);
  if (!popup) throw new PopupBlockedError();
  return {
    go: (to: string) => popup.location.assign(to),
    close: () => popup.close(),
    closed: () => popup.closed,
  };
}

/** The social sign-in's start address: its popup goes to the provider, and comes back signed in. */
export const providerStartUrl = (provider: string) => `/api/auth/oauth/${encodeURIComponent(provider)}/start`;

export type Provider = { id: string; name: string };

/** The social providers the server has configured, in the order to show them; none when it cannot say. */
export const getProviders = () => api<Provider[]>("auth/providers", { bearer: false }).catch((): Provider[] => []);

// The names of every provider a session user may list, for the ones a server no longer offers.
const names: Record<string, string> = { password: "Password", google: "Google", facebook: "Facebook", twitter: "X", github: "GitHub" };

export const providerName = (id: string) => names[id] ?? id;

/**
 * The provider popups of one intent, for a component: `open(provider, start)` opens the popup
 * within the click and sends it to start (an address, or a request that returns one);
 * `waiting` names the provider while its popup is open; `onResult` gets the popups' results of
 * this intent while the component is mounted, also one that comes after the popup seemed
 * closed (a provider's page may cut it off from this page).
 */
export function useProviderPopup(intent: PopupResult["intent"], onResult: (result: PopupResult) => void) {
  const [waiting, setWaiting] = useState<string>();
  const handler = useRef(onResult);
  // The watch of the open popup, stopped by a result, the popup closing or unmounting.
  const watch = useRef<ReturnType<typeof setInterval>>(undefined);
  useEffect(() => {
    handler.current = onResult;
  });
  useEffect(() => {
    const stop = onPopupResult((result) => {
      if (result.intent !== intent) return;
      clearInterval(watch.current);
      setWaiting(undefined);
      handler.current(result);
    });
    return () => {
      stop();
      clearInterval(watch.current);
    };
  }, [intent]);

  const open = async (provider: string, start: string | (() => Promise<{ url: string }>)) => {
    const popup = openPopup(typeof start === "string" ? start : undefined);
    setWaiting(provider);
    clearInterval(watch.current);
    watch.current = setInterval(() => {
      if (!popup.closed()) return;
      clearInterval(watch.current);
      setWaiting(undefined);
    }, 500);
    if (typeof start === "string") return;
    try {
      popup.go((await start()).url);
    } catch (error) {
      clearInterval(watch.current);
      popup.close();
      setWaiting(undefined);
      throw error;
    }
  };
  return { waiting, open };
}

import { signal } from "@preact/signals-react";
import type { PlanId } from "../config/plans";
import { api } from "./api-client";

export type SessionUser = {
  uid: string;
  email: string;
  emailVerified: boolean;
  name: string;
  picture: string;
  providers: string[];
  planId: PlanId;
  planIsActive: boolean;
  timezone: string;
  stripeSubscriptionStatus: string;
};

export type SessionGrant = {
  idToken: string;
  // Milliseconds since the epoch.
  expiresAt: number;
  user: SessionUser;
};

/** undefined while unknown, null when signed out. */
export const user = signal<SessionUser | null | undefined>(undefined);

/** The short-lived ID token lives in memory only; the refresh cookie is HttpOnly. */
export const idToken = signal<string | undefined>(undefined);

// Renew this long before the ID token expires, so requests never carry an expired one.
const refreshMargin = 60_000;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

export function startSession(grant: SessionGrant) {
  clearTimeout(refreshTimer);
  idToken.value = grant.idToken;
  user.value = grant.user;
  if (Number.isFinite(grant.expiresAt)) {
    refreshTimer = setTimeout(loadSession, Math.max(grant.expiresAt - Date.now() - refreshMargin, 0));
  }
}

export function endSession() {
  clearTimeout(refreshTimer);
  idToken.value = undefined;
  user.value = null;
}

/** Trades the refresh cookie for an ID token and the session user; signed out if that fails. */
export async function loadSession() {
  try {
    startSession(await api<SessionGrant>("auth/token", { method: "POST" }));
  } catch {
    endSession();
  }
}

/** Revokes the session on the server; the local session ends even if that call fails. */
export async function signOut() {
  try {
    await api<null>("auth/signout", { method: "POST" });
  } finally {
    endSession();
  }
}

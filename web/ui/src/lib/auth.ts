import { signal } from "@preact/signals-react";
import type { PlanId } from "../config/paths";
import { api, ApiError, connectSession } from "./api-client";
import { flushLocalDrafts } from "./local-drafts";
import { hasSessionHint } from "./session-hint";

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
  // How many messages the plan keeps (null: no limit) and whether one may be added now: the
  // server's rule, so no page keeps a copy of it.
  messageLimit: number | null;
  /** How many recipients a message may have on the plan. */
  recipientLimit: number;
  canAddMessage: boolean;
  /** The end of the author's hold while one holds (ms since the epoch); null or absent: not held. */
  holdUntil?: number | null;
  /** The reminder steps added to the 10-day reminder ("3d", "1d", "2h"); absent: none. */
  reminderLadder?: string[];
  /** The second reminder address, which gets the reminders only; "" or absent: none. */
  reminderAddress?: string;
  /**
   * Whether the second address agreed to get the reminders: it gets nothing until it follows the link
   * sent to it ("unconfirmed"), nor after it refused every email ("refused"); "" or absent: no address.
   */
  reminderAddressState?: "" | "unconfirmed" | "confirmed" | "refused";
  /** Whether sign-in asks for an authenticator app's code; absent: no. */
  totp?: boolean;
  /** How many unused recovery codes remain. */
  recoveryCodes?: number;
};

export type SessionGrant = {
  idToken: string;
  // Milliseconds since the epoch.
  expiresAt: number;
  user: SessionUser;
  /** After a sign-in with a recovery code: how many remain. */
  recoveryCodesLeft?: number;
};

/** undefined while unknown, null when signed out. */
export const user = signal<SessionUser | null | undefined>(undefined);

/**
 * True while this tab signs out. The live list (useMessages) closes its stream as this turns true
 * and opens none while it is; the next sign-in's token opens a new one. A stream request still on
 * its way would otherwise reach the server after the sign-out revoked its token, and fail.
 */
export const signingOut = signal(false);

/** The short-lived ID token lives in memory only; the refresh cookie is HttpOnly. */
export const idToken = signal<string | undefined>(undefined);

// Renew this long before the ID token expires, so requests never carry an expired one.
const refreshMargin = 60_000;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let tokenExpiresAt = 0;

// Tabs share the refresh cookie, and the server ends the whole session when a refresh
// token is presented twice: refreshes are serialised across tabs by a Web Lock, and
// every tab hears of the others' grants and sign-outs on this channel.
const refreshLock = "sendlater-auth-refresh";
type TabMessage = { kind: "grant"; grant: SessionGrant } | { kind: "signout" };
const channel = typeof BroadcastChannel === "undefined" ? undefined : new BroadcastChannel("sendlater-auth");
channel?.addEventListener("message", (event: MessageEvent<TabMessage>) => {
  if (event.data.kind === "grant") {
    applyGrant(event.data.grant);
  } else {
    endSession();
  }
});

function applyGrant({ idToken: token, expiresAt, user: sessionUser }: Pick<SessionGrant, "idToken" | "expiresAt"> & { user?: SessionUser }) {
  clearTimeout(refreshTimer);
  idToken.value = token;
  tokenExpiresAt = expiresAt;
  if (sessionUser) user.value = sessionUser;
  if (Number.isFinite(expiresAt)) {
    refreshTimer = setTimeout(() => void refreshSession(), Math.max(expiresAt - Date.now() - refreshMargin, 0));
  }
}

/** Starts the session of a grant in this tab and in the others. */
export function startSession(grant: SessionGrant) {
  applyGrant(grant);
  channel?.postMessage({ kind: "grant", grant } satisfies TabMessage);
}

export function endSession() {
  clearTimeout(refreshTimer);
  clearTimeout(retryTimer);
  retries = 0;
  tokenExpiresAt = 0;
  idToken.value = undefined;
  user.value = null;
}

const tokenIsFresh = () => idToken.peek() !== undefined && tokenExpiresAt - Date.now() > refreshMargin;

let refreshing: Promise<void> | undefined;

// A refresh that failed on the way (offline, a server restarting) is tried again after these
// pauses, then every last one, while the user stays signed in.
const retryDelays = [1000, 2000, 5000, 10_000, 30_000];
let retries = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

/** Only the server's auth/* answers end a session; a network or server failure is retried. */
const refused = (error: unknown) => error instanceof ApiError && error.code.startsWith("auth/");

/**
 * Trades the refresh cookie for an ID token and the session user; signed out when the server
 * refuses, tried again later when it cannot be reached. One refresh runs at a time in this tab,
 * and, where the browser has Web Locks, in all tabs; a tab that waited for another's refresh
 * takes its grant from the channel instead.
 */
export function refreshSession(): Promise<void> {
  const tokenBefore = idToken.peek();
  const exchange = async () => {
    if (idToken.peek() !== tokenBefore && tokenIsFresh()) return;
    clearTimeout(retryTimer);
    try {
      startSession(await api<SessionGrant>("auth/token", { method: "POST", bearer: false }));
      retries = 0;
    } catch (error) {
      if (refused(error)) {
        endSession();
        return;
      }
      const delay = retryDelays[Math.min(retries, retryDelays.length - 1)];
      retries++;
      retryTimer = setTimeout(() => void refreshSession(), delay);
    }
  };
  refreshing ??= (navigator.locks ? navigator.locks.request(refreshLock, exchange) : exchange()).finally(() => {
    refreshing = undefined;
  }) as Promise<void>;
  return refreshing;
}

/** Called once on load: whoever holds a refresh cookie is signed in. */
export function loadSession(): Promise<void> {
  if (!hasSessionHint()) {
    endSession();
    return Promise.resolve();
  }
  return refreshSession();
}

/** Gives the API client this session's ID token and sign-out; called once at start-up. */
export function connectApiClient() {
  connectSession({ idToken: currentIdToken, onInvalidToken: endSession });
}

/** The ID token for a request, renewed first when it is about to expire (a sleeping tab misses its timer). */
export async function currentIdToken(): Promise<string | undefined> {
  if (idToken.peek() !== undefined && !tokenIsFresh()) await refreshSession();
  return idToken.peek();
}

export async function signUp(email: string, password: string) {
  const request = (timezone?: string) =>
    api<SessionGrant>("auth/signup", { method: "POST", body: { email, password, timezone }, bearer: false });
  try {
    startSession(await request(Intl.DateTimeFormat().resolvedOptions().timeZone));
  } catch (error) {
    // A zone the server does not know (a browser that says "Etc/Unknown") is not the visitor's
    // mistake and the form has no field for it: sign up on UTC, which the profile can change.
    if (!(error instanceof ApiError) || Object.keys(error.fields).join() !== "timezone") throw error;
    startSession(await request());
  }
}

/** A sign-in to an account with a second factor: no session yet, a challenge to send back with a code. */
export type SecondFactorChallenge = { token: string; expiresAt: number; methods: string[] };

type Proof = { challenge: string; nonce: string };

/**
 * Sends request; an account with many failed sign-ins asks every browser for a proof of work:
 * solve it and send again (docs/identity.md). The owner gets in; each guess costs a stranger.
 */
async function withProof<T>(email: string | undefined, request: (proof?: Proof) => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "auth/proof-required" || !email) throw error;
    const puzzle = await api<{ challenge: string; difficulty: number }>("auth/challenge", {
      method: "POST",
      body: { email },
      bearer: false,
    });
    // The solver loads only here: the home page does not pay for it (DESIGN.md rule 15).
    const { solve } = await import("./proof-of-work");
    return request({ challenge: puzzle.challenge, nonce: await solve(puzzle.challenge, puzzle.difficulty) });
  }
}

/** Signs in; for an account with a second factor it returns the challenge the code step sends back. */
export async function signIn(email: string, password: string): Promise<SecondFactorChallenge | undefined> {
  const reply = await withProof(email, (proof) =>
    api<SessionGrant | { secondFactor: SecondFactorChallenge }>("auth/signin", {
      method: "POST",
      body: { email, password, proof },
      bearer: false,
    }),
  );
  if ("secondFactor" in reply) return reply.secondFactor;
  startSession(reply);
  return undefined;
}

/**
 * Ends a sign-in with a second factor: the challenge and a code from the authenticator app or a
 * recovery code. Returns how many recovery codes remain when one was used. email (absent after
 * a provider's sign-in) lets it solve a proof of work when the account is under attack.
 */
export async function completeSecondFactor(challenge: SecondFactorChallenge, code: string, email?: string) {
  const grant = await withProof(email, (proof) =>
    api<SessionGrant>("auth/second-factor", {
      method: "POST",
      body: { token: challenge.token, code, proof },
      bearer: false,
    }),
  );
  startSession(grant);
  return grant.recoveryCodesLeft;
}

/** Proves a recent sign-in for a sensitive action; the new ID token carries it. */
export async function reauthenticate(password: string) {
  const grant = await api<Omit<SessionGrant, "user">>("auth/reauth", { method: "POST", body: { password } });
  applyGrant(grant);
  channel?.postMessage({ kind: "grant", grant: { ...grant, user: user.peek()! } } satisfies TabMessage);
}

/** Replaces the session user after a change: the profile, a plan that started or lapsed, a provider linked. */
export function updateUser(next: SessionUser) {
  user.value = next;
}

/**
 * Revokes the session on the server; the local session ends, in every tab, even if that call fails.
 * First this device's drafts go to the server and leave this browser (lib/local-drafts.ts).
 */
export async function signOut() {
  const uid = user.peek()?.uid;
  signingOut.value = true;
  try {
    if (uid) await flushLocalDrafts(uid);
    await api<null>("auth/signout", { method: "POST" });
  } finally {
    endSession();
    signingOut.value = false;
    channel?.postMessage({ kind: "signout" } satisfies TabMessage);
  }
}

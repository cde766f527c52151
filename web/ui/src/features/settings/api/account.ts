import { api, apiDownload } from "../../../lib/api-client";
import type { SessionUser } from "../../../lib/auth";

export const updateProfile = (profile: { name: string; email: string }) =>
  api<SessionUser>("me", { method: "PATCH", body: profile });

/** A reminder step added to the 10-day reminder. */
export type LadderStep = "3d" | "1d" | "2h";

/** The reminder ladder and the second reminder address ("" removes it). */
export const updateReminders = (reminders: { reminderLadder: LadderStep[]; reminderAddress: string }) =>
  api<SessionUser>("me", { method: "PATCH", body: reminders });

/** Sends the second reminder address a new link to confirm (limited: a few an hour). */
export const sendReminderAddressConfirmation = () => api<null>("me/reminder-address/confirm", { method: "POST" });

export const changePassword = (password: string) => api<null>("me/password", { method: "POST", body: { password } });

/** The card provider's billing portal, coming back to the settings. */
export const createBillingSession = (returnUrl: string) =>
  api<{ url: string }>("stripe-create-billing-session", { method: "POST", body: { returnUrl } });

/** A provider account linked to the user; confirmed is false until the email code of a provider that gave no email is used. */
export type LinkedAccount = { provider: string; name: string; email: string; confirmed: boolean; linkedAt: number };

export const listLinkedAccounts = () => api<LinkedAccount[]>("me/providers");

/** Starts linking provider (a recent sign-in): the popup goes to url. */
export const startLink = (provider: string) => api<{ url: string }>(`me/providers/${encodeURIComponent(provider)}`, { method: "POST" });

/** Unlinks provider while another way to sign in remains (a recent sign-in); returns the session user. */
export const unlinkProvider = (provider: string) =>
  api<SessionUser>(`me/providers/${encodeURIComponent(provider)}`, { method: "DELETE" });

/** Starts signing in again with provider: the popup goes to url. */
export const startReauth = (provider: string) => api<{ url: string }>(`auth/reauth/${encodeURIComponent(provider)}`, { method: "POST" });

export const getMe = () => api<SessionUser>("me");

/** What a personal access token may do (core/identity_scopes.go; docs/api.md, Access token scopes). */
export type TokenScope = "messages:read" | "messages:write" | "account";

/**
 * A personal access token as the list shows it (never its secret); lastUsedAt is absent when it was never used.
 * madeBeforeScopes marks a token made before tokens had scopes: it has every scope.
 */
export type AccessToken = {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  scopes: TokenScope[];
  madeBeforeScopes?: boolean;
};

export const listAccessTokens = () => api<AccessToken[]>("me/tokens");

/** Makes a token (a recent sign-in); its secret, `token`, is in this reply only. */
export const createAccessToken = (name: string, scopes: TokenScope[]) =>
  api<AccessToken & { token: string }>("me/tokens", { method: "POST", body: { name, scopes } });

export const revokeAccessToken = (id: string) => api<null>(`me/tokens/${encodeURIComponent(id)}`, { method: "DELETE" });

/** A pending authenticator app: the secret to type, its otpauth URI and the URI's QR code (a PNG data URL drawn by the server). */
export type TOTPEnrolment = { secret: string; uri: string; qr: string };

/** Starts setting up an authenticator app (a recent sign-in); it counts once a code confirms it. */
export const beginTOTP = () => api<TOTPEnrolment>("me/totp", { method: "POST" });

/** Turns the app on with one of its codes; the reply's recovery codes are shown this once. */
export const confirmTOTP = (code: string) =>
  api<{ recoveryCodes: string[] }>("me/totp/confirm", { method: "POST", body: { code } });

/** Turns the app off (a recent sign-in): its secret and the recovery codes go. */
export const disableTOTP = () => api<null>("me/totp", { method: "DELETE" });

/** New recovery codes (a recent sign-in); the old ones stop working. */
export const regenerateRecoveryCodes = () => api<{ recoveryCodes: string[] }>("me/recovery-codes", { method: "POST" });

/**
 * A session of the account (GET /api/me/sessions): the device its browser names, the network it
 * signed in from (a /24 or /48, never the address), when it signed in and was last seen (written
 * at most every 5 minutes); current marks this browser's.
 */
export type SignedInSession = {
  id: string;
  device: string;
  browser?: string;
  os?: string;
  network?: string;
  createdAt: number;
  lastSeenAt: number;
  current: boolean;
};

export const listSessions = () => api<{ sessions: SignedInSession[]; signInAlerts: boolean }>("me/sessions");

/** Ends a session: another needs a recent sign-in; this browser's is signing out. */
export const revokeSession = (id: string) => api<null>(`me/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });

/** Ends every other session (a recent sign-in); access tokens stay. */
export const revokeOtherSessions = () => api<{ revoked: number }>("me/sessions/revoke-others", { method: "POST" });

/** Switches the email about a sign-in from a new device; off needs a recent sign-in. */
export const setSignInAlerts = (signInAlerts: boolean) =>
  api<{ signInAlerts: boolean }>("me/sign-in-alerts", { method: "PUT", body: { signInAlerts } });

/** The account's files against its plan (GET /api/me/files): limit 0 is a plan without files. */
export type FilesUsage = { plan: string; files: number; used: number; limit: number; perMessage: number; maxFiles: number };

export const getFilesUsage = () => api<FilesUsage>("me/files");

/** The account's export: JSON, or a zip of that JSON and the files' bytes. */
export const downloadExport = (format: "json" | "zip") =>
  apiDownload(`me/export?format=${format}`, `sendlater-export.${format}`);

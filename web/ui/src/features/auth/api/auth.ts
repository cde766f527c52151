import { api } from "../../../lib/api-client";

export function requestPasswordReset(email: string) {
  return api<null>("auth/password-reset", { method: "POST", body: { email }, bearer: false });
}

export function confirmPasswordReset(oobCode: string, password: string) {
  return api<null>("auth/password-reset/confirm", { method: "POST", body: { oobCode, password }, bearer: false });
}

/** Creates the account of a provider that gave no email address, with the one typed; it signs in once confirmed. */
export function signUpWithEmail(provider: string, email: string) {
  return api<null>(`auth/oauth/${encodeURIComponent(provider)}/email`, { method: "POST", body: { email }, bearer: false });
}

import { api } from "../../../lib/api-client";

export type Provider = { id: string; name: string };

/** The social sign-in providers the server has configured; none when it cannot say. */
export function getProviders() {
  return api<Provider[]>("auth/providers", { bearer: false }).catch(() => []);
}

export function requestPasswordReset(email: string) {
  return api<null>("auth/password-reset", { method: "POST", body: { email }, bearer: false });
}

export function confirmPasswordReset(oobCode: string, password: string) {
  return api<null>("auth/password-reset/confirm", { method: "POST", body: { oobCode, password }, bearer: false });
}

/** Where the provider's popup starts; its callback sets the refresh cookie. */
export const providerStartUrl = (provider: string) => `/api/auth/oauth/${encodeURIComponent(provider)}/start`;

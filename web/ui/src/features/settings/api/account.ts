import { api } from "../../../lib/api-client";
import type { SessionUser } from "../../../lib/auth";

export const updateProfile = (profile: { name: string; email: string }) =>
  api<SessionUser>("me", { method: "PATCH", body: profile });

export const changePassword = (password: string) => api<null>("me/password", { method: "POST", body: { password } });

/** The card provider's billing portal, coming back to the settings. */
export const createBillingSession = (returnUrl: string) =>
  api<{ url: string }>("stripe-create-billing-session", { method: "POST", body: { returnUrl } });

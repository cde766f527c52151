import { api } from "../../../lib/api-client";
import { createPasskey, type Ceremony } from "../../../lib/webauthn";

/** A passkey of the account as its list shows it; lastUsedAt is absent until it signs in; synced: backed up by its provider. */
export type Passkey = { id: string; name: string; createdAt: number; lastUsedAt?: number; synced: boolean };

export const listPasskeys = () => api<Passkey[]>("me/passkeys");

/**
 * Adds a passkey named name (a recent sign-in): the server's options, the browser's prompt, the
 * server's check. A refused or closed prompt throws a PasskeyError and adds nothing.
 */
export async function addPasskey(name: string) {
  const ceremony = await api<Ceremony>("me/passkeys/begin", { method: "POST" });
  const response = await createPasskey(ceremony);
  return api<Passkey>("me/passkeys", { method: "POST", body: { state: ceremony.state, response, name } });
}

export const renamePasskey = (id: string, name: string) =>
  api<Passkey>(`me/passkeys/${encodeURIComponent(id)}`, { method: "PATCH", body: { name } });

/** Removes a passkey (a recent sign-in): it no longer signs in. */
export const removePasskey = (id: string) => api<null>(`me/passkeys/${encodeURIComponent(id)}`, { method: "DELETE" });

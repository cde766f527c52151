import { api } from "../../../lib/api-client";
import { startSession, type SecondFactorChallenge, type SessionGrant } from "../../../lib/auth";
import { getPasskey, type Ceremony } from "../../../lib/webauthn";

const beginSignIn = (conditional: boolean) =>
  api<Ceremony>("auth/passkey/begin", { method: "POST", body: { conditional }, bearer: false });

/**
 * Signs in with a passkey, without an email or a password: a prompt, or with conditional the
 * email field's autofill until signal aborts it. A passkey is both factors: no code is asked.
 */
export async function signInWithPasskey({ conditional = false, signal }: { conditional?: boolean; signal?: AbortSignal } = {}) {
  const ceremony = await beginSignIn(conditional);
  const response = await getPasskey(ceremony, { conditional, signal });
  startSession(await api<SessionGrant>("auth/passkey", { method: "POST", body: { state: ceremony.state, response }, bearer: false }));
}

/** Ends a sign-in's second step with one of the account's passkeys instead of a code. */
export async function completeSecondFactorWithPasskey(challenge: SecondFactorChallenge) {
  const ceremony = await beginSignIn(false);
  const response = await getPasskey(ceremony);
  startSession(
    await api<SessionGrant>("auth/second-factor/passkey", {
      method: "POST",
      body: { token: challenge.token, state: ceremony.state, response },
      bearer: false,
    }),
  );
}

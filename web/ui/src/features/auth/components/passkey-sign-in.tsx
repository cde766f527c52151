import { useCallback, useEffect, useRef, useState } from "react";
import { Alert, errorMessage } from "../../../components/form";
import { useHydrated } from "../../../lib/hydrated";
import { autofillSupported, PasskeyError } from "../../../lib/webauthn";
import { signInWithPasskey } from "../api/passkey";

const quiet = (error: unknown) => error instanceof PasskeyError && (error.reason === "aborted" || error.reason === "cancelled");

/**
 * The email field's passkey autofill (conditional mediation): while enabled, and where the
 * browser offers it, a passkey picked from the field's suggestions signs in. stop() ends the
 * waiting request (the password form is being sent, or the passkey button opens its prompt) and
 * resolves once the browser let it go; restart() waits again (the password was wrong).
 */
export function usePasskeyAutofill(enabled: boolean, onSignedIn: () => void, onError: (message: string) => void) {
  const [round, setRound] = useState(0);
  const controller = useRef<AbortController>(undefined);
  const pending = useRef<Promise<unknown>>(undefined);
  const signedIn = useRef(onSignedIn);
  const failed = useRef(onError);
  signedIn.current = onSignedIn;
  failed.current = onError;

  useEffect(() => {
    if (!enabled) return;
    const c = new AbortController();
    controller.current = c;
    pending.current = autofillSupported().then(async (available) => {
      if (!available || c.signal.aborted) return;
      try {
        await signInWithPasskey({ conditional: true, signal: c.signal });
        if (!c.signal.aborted) signedIn.current();
      } catch (error) {
        if (!c.signal.aborted && !quiet(error)) failed.current(errorMessage(error));
      }
    });
    return () => c.abort();
  }, [enabled, round]);

  const stop = useCallback(async () => {
    controller.current?.abort();
    await pending.current;
  }, []);
  const restart = useCallback(() => setRound((n) => n + 1), []);
  return { stop, restart };
}

/**
 * "Sign in with a passkey": the browser's prompt lists the passkeys it has for this site, and
 * the one picked signs in, without an email or a password. A closed prompt, a browser without
 * passkeys or a passkey the server refuses says so here.
 */
export function PasskeySignIn({ onSignedIn, autofill }: { onSignedIn: () => void; autofill: ReturnType<typeof usePasskeyAutofill> }) {
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const start = async () => {
    setBusy(true);
    setError(undefined);
    await autofill.stop();
    try {
      await signInWithPasskey();
      onSignedIn();
    } catch (caught) {
      if (!(caught instanceof PasskeyError && caught.reason === "aborted")) setError(errorMessage(caught));
      autofill.restart();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="passkey-sign-in-area">
      {error && <Alert>{error}</Alert>}
      <button
        type="button"
        className="secondary outline passkey-sign-in"
        disabled={!hydrated || busy}
        aria-busy={busy}
        onClick={() => void start()}
      >
        Sign in with a passkey
      </button>
    </div>
  );
}

import { useState } from "react";
import { Alert, errorMessage, requireFields, SubmitButton, TextField, useForm } from "../../../components/form";
import { completeSecondFactor, type SecondFactorChallenge } from "../../../lib/auth";
import { showToast } from "../../../lib/toasts";
import { PasskeyError } from "../../../lib/webauthn";
import { completeSecondFactorWithPasskey } from "../api/passkey";

/**
 * The sign-in's second step, for an account with an authenticator app: the app's 6-digit code,
 * or one of the recovery codes. No session exists until it is right. After a recovery code a
 * toast says how many remain (the page moves on as soon as the session exists). An account with
 * a passkey may use it instead ("Use a passkey", when the challenge offers it).
 */
export function SecondFactorForm({
  challenge,
  email,
  onSignedIn,
  onRestart,
}: {
  challenge: SecondFactorChallenge;
  email?: string;
  onSignedIn: () => void;
  onRestart: () => void;
}) {
  const form = useForm({ code: "" }, (values) =>
    requireFields(values, { code: "Please enter the code from your app or a recovery code" }),
  );
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const expired = form.alert !== undefined && /sign in again/i.test(form.alert);

  const signInWithPasskey = async () => {
    setPasskeyBusy(true);
    form.setAlert(undefined);
    try {
      await completeSecondFactorWithPasskey(challenge);
      onSignedIn();
    } catch (caught) {
      if (!(caught instanceof PasskeyError && caught.reason === "aborted")) form.setAlert(errorMessage(caught));
    } finally {
      setPasskeyBusy(false);
    }
  };

  const submit = form.handleSubmit(async ({ code }) => {
    const left = await completeSecondFactor(challenge, code.trim(), email);
    if (left !== undefined) {
      const remain =
        left === 0 ? "No recovery code remains: make new ones in Settings → Security now." : `${left} recovery code${left === 1 ? " remains" : "s remain"}.`;
      showToast(`You signed in with a recovery code, which cannot be used again. ${remain}`, { kind: left < 3 ? "error" : "info", duration: 15_000 });
    }
    onSignedIn();
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Second step">
      <p>Enter the 6-digit code from your authenticator app. Lost your phone? Enter one of your recovery codes.</p>
      {form.alert && <Alert>{form.alert}</Alert>}
      <TextField label="Code" autoComplete="one-time-code" autoFocus spellCheck={false} {...form.bind("code")} />
      <SubmitButton busy={form.busy}>Verify</SubmitButton>
      {challenge.methods.includes("passkey") && !expired && (
        <button
          type="button"
          className="secondary outline passkey-sign-in"
          disabled={passkeyBusy || form.busy}
          aria-busy={passkeyBusy}
          onClick={() => void signInWithPasskey()}
        >
          Use a passkey
        </button>
      )}
      {expired && (
        <p>
          <button type="button" className="secondary outline" onClick={onRestart}>
            Sign in again
          </button>
        </p>
      )}
    </form>
  );
}

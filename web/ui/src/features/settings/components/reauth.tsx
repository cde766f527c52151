import { useRef, useState } from "react";
import { Alert, errorMessage, requireFields, SubmitButton, TextField, useForm } from "../../../components/form";
import { Modal } from "../../../components/modal";
import { ApiError } from "../../../lib/api-client";
import { reauthenticate, user } from "../../../lib/auth";
import { providerName, useProviderPopup } from "../../../lib/social";
import { startReauth } from "../api/account";

type Pending = { retry: () => Promise<void>; refusal: ApiError; settle: (error?: unknown) => void };

/**
 * Sensitive actions need a recent sign-in. `guard(action)` runs the action; when the server
 * answers auth/requires-recent-login it asks the user to sign in again (with the password, or
 * the first provider of their sign-in methods) and runs the action again, settling with that second run (or with the
 * refusal when the dialog is closed).
 */
export function useRecentLogin() {
  const [pending, setPending] = useState<Pending>();

  const guard = (action: () => Promise<void>) =>
    action().catch(
      (error: unknown) =>
        new Promise<void>((resolve, reject) => {
          if (!(error instanceof ApiError && error.code === "auth/requires-recent-login")) {
            reject(error);
            return;
          }
          setPending({
            retry: action,
            refusal: error,
            settle: (outcome) => {
              setPending(undefined);
              if (outcome === undefined) resolve();
              else reject(outcome);
            },
          });
        }),
    );

  const dialog = pending && <ReauthDialog pending={pending} />;
  return { guard, dialog };
}

/** The dialog asks for the password, or offers the button of the first provider when the first way to sign in is one. */
function ReauthDialog({ pending }: { pending: Pending }) {
  const settled = useRef(false);
  const [retrying, setRetrying] = useState(false);
  const first = user.peek()?.providers[0] ?? "password";

  const settle = (outcome?: unknown) => {
    if (settled.current) return;
    settled.current = true;
    pending.settle(outcome);
  };
  // The action's own failure belongs to its form, not to this dialog.
  const retry = async () => {
    setRetrying(true);
    await pending.retry().then(() => settle(), settle);
  };
  const close = () => settle(pending.refusal);

  return (
    <Modal labelledBy="reauth-title" onClose={retrying ? undefined : close}>
      <article>
        {first === "password" ? (
          <PasswordReauth onDone={retry} onClose={close} retrying={retrying} />
        ) : (
          <ProviderReauth provider={first} onDone={retry} onClose={close} retrying={retrying} />
        )}
      </article>
    </Modal>
  );
}

type ReauthProps = { onDone: () => Promise<void>; onClose: () => void; retrying: boolean };

function DialogHeader({ onClose, retrying }: Omit<ReauthProps, "onDone">) {
  return (
    <header>
      <button type="button" aria-label="Close" rel="prev" onClick={onClose} disabled={retrying} />
      <h2 id="reauth-title">Please sign in again to complete this action</h2>
    </header>
  );
}

function PasswordReauth({ onDone, onClose, retrying }: ReauthProps) {
  const form = useForm({ password: "" }, (values) => requireFields(values, { password: "Please enter your password" }));
  const submit = form.handleSubmit(async ({ password }) => {
    await reauthenticate(password);
    await onDone();
  });
  return (
    <form onSubmit={submit} noValidate>
      <DialogHeader onClose={onClose} retrying={retrying} />
      {form.alert && <Alert>{form.alert}</Alert>}
      <TextField label="Password" type="password" autoComplete="current-password" autoFocus {...form.bind("password")} />
      <footer>
        <SubmitButton busy={form.busy}>Sign in</SubmitButton>
      </footer>
    </form>
  );
}

/** Signing in again through the provider's popup makes this session's sign-in recent on the server. */
function ProviderReauth({ provider, onDone, onClose, retrying }: ReauthProps & { provider: string }) {
  const [error, setError] = useState<string>();
  const name = providerName(provider);
  const { waiting, open } = useProviderPopup("reauth", (result) => {
    if (result.status === "success") void onDone();
    else setError(result.message);
  });
  const start = () => {
    setError(undefined);
    open(provider, () => startReauth(provider)).catch((caught: unknown) => setError(errorMessage(caught)));
  };
  return (
    <>
      <DialogHeader onClose={onClose} retrying={retrying} />
      {error && <Alert>{error}</Alert>}
      <p>You signed in with {name}: sign in with it again to go on.</p>
      <footer>
        <button type="button" aria-busy={waiting !== undefined || retrying} disabled={waiting !== undefined || retrying} onClick={start} autoFocus>
          Sign in with {name}
        </button>
      </footer>
    </>
  );
}

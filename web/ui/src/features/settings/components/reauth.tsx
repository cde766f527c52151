import { useRef, useState } from "react";
import { Alert, requireFields, SubmitButton, TextField, useForm } from "../../../components/form";
import { Modal } from "../../../components/modal";
import { ApiError } from "../../../lib/api-client";
import { reauthenticate } from "../../../lib/auth";

type Pending = { retry: () => Promise<void>; refusal: ApiError; settle: (error?: unknown) => void };

/**
 * Sensitive actions need a recent sign-in. `guard(action)` runs the action; when the server
 * answers auth/requires-recent-login it asks for the password, re-authenticates and runs the
 * action again, settling with that second run (or with the
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

function ReauthDialog({ pending }: { pending: Pending }) {
  const form = useForm({ password: "" }, (values) => requireFields(values, { password: "Please enter your password" }));
  const [retrying, setRetrying] = useState(false);
  const settled = useRef(false);

  const settle = (outcome?: unknown) => {
    if (settled.current) return;
    settled.current = true;
    pending.settle(outcome);
  };

  const submit = form.handleSubmit(async ({ password }) => {
    await reauthenticate(password);
    setRetrying(true);
    // The action's own failure belongs to its form, not to this dialog.
    await pending.retry().then(() => settle(), settle);
  });

  return (
    <Modal labelledBy="reauth-title" onClose={retrying ? undefined : () => settle(pending.refusal)}>
      <article>
        <form onSubmit={submit} noValidate>
          <header>
            <button type="button" aria-label="Close" rel="prev" onClick={() => settle(pending.refusal)} disabled={retrying} />
            <h2 id="reauth-title">Please sign in again to complete this action</h2>
          </header>
          {form.alert && <Alert>{form.alert}</Alert>}
          <TextField label="Password" type="password" autoComplete="current-password" autoFocus {...form.bind("password")} />
          <footer>
            <SubmitButton busy={form.busy}>Sign in</SubmitButton>
          </footer>
        </form>
      </article>
    </Modal>
  );
}

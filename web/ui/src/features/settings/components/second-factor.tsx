import { useState } from "react";
import { Alert, errorMessage, requireFields, SubmitButton, TextField, useForm } from "../../../components/form";
import { updateUser, type SessionUser } from "../../../lib/auth";
import { beginTOTP, confirmTOTP, disableTOTP, getMe, regenerateRecoveryCodes, type TOTPEnrolment } from "../api/account";
import { useRecentLogin } from "./reauth";

/**
 * Settings → Security: the authenticator app (enrol by scanning the QR code, which the server
 * draws, or typing the secret; confirm with one code) and the recovery codes, shown once at
 * enrolment and on regeneration. Turning the app off and new codes need a recent sign-in.
 */
export function SecondFactor({ account }: { account: SessionUser }) {
  const { guard, dialog } = useRecentLogin();
  const [enrolment, setEnrolment] = useState<TOTPEnrolment>();
  const [codes, setCodes] = useState<string[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const act = (action: () => Promise<void>) => {
    setError(undefined);
    setBusy(true);
    guard(action)
      .catch((caught: unknown) => setError(errorMessage(caught)))
      .finally(() => setBusy(false));
  };
  const reload = async () => updateUser(await getMe());

  const start = () =>
    act(async () => {
      setCodes(undefined);
      setEnrolment(await beginTOTP());
    });
  const turnOff = () =>
    act(async () => {
      await disableTOTP();
      setCodes(undefined);
      await reload();
    });
  const regenerate = () =>
    act(async () => {
      setCodes((await regenerateRecoveryCodes()).recoveryCodes);
      await reload();
    });

  return (
    <section aria-labelledby="second-factor-title">
      <h2 id="second-factor-title">Authenticator app</h2>
      {error && <Alert>{error}</Alert>}
      {codes && <RecoveryCodes codes={codes} />}
      {account.totp ? (
        <>
          <p>
            Signing in asks for a code from your authenticator app, or one of your recovery codes.{" "}
            {account.recoveryCodes === 1 ? "1 recovery code remains." : `${account.recoveryCodes ?? 0} recovery codes remain.`}
          </p>
          <p className="actions">
            <button type="button" className="outline" aria-busy={busy} disabled={busy} onClick={regenerate}>
              New recovery codes
            </button>{" "}
            <button type="button" className="secondary outline" aria-busy={busy} disabled={busy} onClick={turnOff}>
              Turn off
            </button>
          </p>
        </>
      ) : enrolment ? (
        <Enrol
          enrolment={enrolment}
          confirmed={async (recovery) => {
            setEnrolment(undefined);
            setCodes(recovery);
            await reload();
          }}
        />
      ) : (
        <>
          <p>Ask for a code from an app on your phone (such as Google Authenticator, 1Password or Aegis) at every sign-in, so a stolen password is not enough.</p>
          <button type="button" className="outline" aria-busy={busy} disabled={busy} onClick={start}>
            Set up an authenticator app
          </button>
        </>
      )}
      {dialog}
    </section>
  );
}

/** Scan or type the secret, then confirm with the app's code. */
function Enrol({ enrolment, confirmed }: { enrolment: TOTPEnrolment; confirmed: (codes: string[]) => Promise<void> }) {
  const form = useForm({ code: "" }, (values) => requireFields(values, { code: "Please enter the 6-digit code from your app" }));
  const submit = form.handleSubmit(async ({ code }) => {
    const { recoveryCodes } = await confirmTOTP(code.trim());
    await confirmed(recoveryCodes);
  });
  return (
    <form onSubmit={submit} noValidate aria-label="Set up an authenticator app">
      <p>Scan this code with your authenticator app, or type the key below into it.</p>
      <img src={enrolment.qr} width={200} height={200} alt="QR code of your authenticator app's key" />
      <p>
        Key: <code data-testid="totp-secret">{enrolment.secret}</code>
      </p>
      {form.alert && <Alert>{form.alert}</Alert>}
      <TextField label="Code from the app" autoComplete="one-time-code" inputMode="numeric" {...form.bind("code")} />
      <SubmitButton busy={form.busy} className="outline">
        Turn on
      </SubmitButton>
    </form>
  );
}

/** Recovery codes just made: shown this once, to copy or download. */
function RecoveryCodes({ codes }: { codes: string[] }) {
  const [copy, setCopy] = useState<"copied" | "failed">();
  const text = codes.join("\n") + "\n";
  const download = `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
  const copyCodes = () =>
    Promise.resolve()
      .then(() => navigator.clipboard.writeText(text))
      .then(
        () => setCopy("copied"),
        () => setCopy("failed"),
      );
  return (
    <div className="recovery-codes">
      <p>
        <strong>Save your recovery codes now: they will not be shown again.</strong> Each signs in once without the app.
      </p>
      <ul aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <p className="actions">
        <button type="button" className="outline" onClick={() => void copyCodes()}>
          Copy codes
        </button>{" "}
        <a href={download} download="sendlater-recovery-codes.txt" role="button" className="outline">
          Download
        </a>
      </p>
      <small role="status">
        {copy === "copied" && "Copied."}
        {copy === "failed" && "Copying did not work here: select the codes and copy them with your keyboard."}
      </small>
    </div>
  );
}

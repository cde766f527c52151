import { useState } from "react";
import { Alert, errorMessage, SubmitButton, TextField, useForm } from "../../../components/form";
import { updateUser, type SessionUser } from "../../../lib/auth";
import { sendReminderAddressConfirmation, updateReminders, type LadderStep } from "../api/account";

/** The reminder ladder's steps, added to the 10-day reminder, which always comes. */
const steps: { step: LadderStep; label: string }[] = [
  { step: "3d", label: "3 days before" },
  { step: "1d", label: "1 day before" },
  { step: "2h", label: "On the day, 2 hours before" },
];

/** Settings → General: the reminder ladder and the second reminder address (Pro). The server checks both. */
export function RemindersForm({ account }: { account: SessionUser }) {
  const [saved, setSaved] = useState(false);
  const [ladder, setLadder] = useState<LadderStep[]>((account.reminderLadder ?? []) as LadderStep[]);
  const form = useForm({ reminderAddress: account.reminderAddress ?? "" }, () => ({}));

  const toggle = (step: LadderStep, on: boolean) => {
    setSaved(false);
    setLadder((current) => steps.map((s) => s.step).filter((s) => (s === step ? on : current.includes(s))));
  };

  const submit = form.handleSubmit(async ({ reminderAddress }) => {
    setSaved(false);
    updateUser(await updateReminders({ reminderLadder: ladder, reminderAddress: reminderAddress.trim() }));
    setSaved(true);
  });

  return (
    <form onSubmit={submit} noValidate aria-labelledby="reminders-title">
      <h2 id="reminders-title">Reminders</h2>
      {form.alert && <Alert>{form.alert}</Alert>}
      {saved && <Alert kind="success">Your reminders have been updated</Alert>}
      <fieldset>
        <legend>You are always reminded 10 days before a message is sent. Remind me also:</legend>
        {steps.map(({ step, label }) => (
          <label key={step}>
            <input type="checkbox" checked={ladder.includes(step)} onChange={(event) => toggle(step, event.currentTarget.checked)} />
            {label}
          </label>
        ))}
      </fieldset>
      <TextField
        label="Second reminder address (Pro; gets the reminders only)"
        type="email"
        autoComplete="off"
        {...form.bind("reminderAddress")}
      />
      {account.reminderAddress ? (
        <ReminderAddressState address={account.reminderAddress} state={account.reminderAddressState ?? "unconfirmed"} />
      ) : null}
      <SubmitButton busy={form.busy} className="outline">
        Save reminders
      </SubmitButton>
    </form>
  );
}

/**
 * Whether the saved second address agreed to get the reminders: it gets nothing until it follows the link
 * sent to it, which may be sent again (within the server's limits), nor after it refused every email.
 */
function ReminderAddressState({ address, state }: { address: string; state: string }) {
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ kind: "success" | "error"; text: string }>();
  const resend = async () => {
    setSending(true);
    setResult(undefined);
    try {
      await sendReminderAddressConfirmation();
      setResult({ kind: "success", text: `A new link is on its way to ${address}.` });
    } catch (error) {
      setResult({ kind: "error", text: errorMessage(error) });
    } finally {
      setSending(false);
    }
  };
  if (state === "confirmed") {
    return <p className="reminder-address-state">{address}: confirmed. It gets a copy of every reminder.</p>;
  }
  if (state === "refused") {
    return (
      <p className="reminder-address-state">
        {address} refused every email from us: it gets nothing. You may choose another address.
      </p>
    );
  }
  return (
    <>
      <p className="reminder-address-state">
        {address}: waiting for confirmation. It gets nothing until it follows the link we sent it.{" "}
        <button type="button" className="outline secondary" aria-busy={sending} disabled={sending} onClick={() => void resend()}>
          Resend the link
        </button>
      </p>
      {result && <Alert kind={result.kind}>{result.text}</Alert>}
    </>
  );
}

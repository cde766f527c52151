import { useState } from "react";
import { Alert, SubmitButton, TextField, useForm } from "../../../components/form";
import { updateUser, type SessionUser } from "../../../lib/auth";
import { updateReminders, type LadderStep } from "../api/account";

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
      <SubmitButton busy={form.busy}>Save reminders</SubmitButton>
    </form>
  );
}

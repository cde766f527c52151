import { useState, type FormEvent } from "react";
import { errorMessage } from "../../../components/form";
import { ApiError } from "../../../lib/api-client";
import { updateUser, type SessionUser } from "../../../lib/auth";
import { showToast } from "../../../lib/toasts";
import { endHold, holdMessages } from "../api/hold";
import { formatDate } from "./dates";

const day = 24 * 60 * 60 * 1000;

/** "YYYY-MM-DD" of a time, in the browser's zone, as a date field takes it. */
const dateValue = (time: number) => {
  const d = new Date(time);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

/** The start of a date field's day, in the browser's zone: the hold ends as that day begins. */
const startOf = (value: string) => {
  const [y = 0, m = 1, d = 1] = value.split("-").map(Number);
  return new Date(y, m - 1, d).getTime();
};

/**
 * "Hold everything": while held, the dashboard says until when and offers to end it; otherwise a
 * date field sets a hold (tomorrow at the earliest, 12 months away at most, as the server checks).
 */
export function HoldCard({ account }: { account: SessionUser }) {
  const [busy, setBusy] = useState(false);
  const [until, setUntil] = useState("");
  const [error, setError] = useState<string | undefined>();
  const held = account.holdUntil != null && account.holdUntil > Date.now();

  const run = async (call: () => Promise<SessionUser>, done: string) => {
    setBusy(true);
    setError(undefined);
    try {
      updateUser(await call());
      showToast(done, { kind: "success" });
      setUntil("");
    } catch (e) {
      setError(e instanceof ApiError && e.fields.until ? e.fields.until : errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  if (held) {
    return (
      <article>
        <p className="notice" role="status">
          Your messages are on hold until {formatDate(account.holdUntil!)}. Nothing is delivered and no reminder is sent
          until then; each message whose date passes meanwhile gets a new reminder at the end and is delivered 10 days
          later.{" "}
          <button type="button" className="outline secondary" aria-busy={busy} disabled={busy} onClick={() => void run(endHold, "The hold has ended.")}>
            End hold
          </button>
        </p>
      </article>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (until === "") {
      setError("Please choose the date the hold ends");
      return;
    }
    void run(() => holdMessages(startOf(until)), "Your messages are on hold.");
  };
  const now = Date.now();
  return (
    <article>
      <header>
        <h2>Hold everything</h2>
      </header>
      <form onSubmit={submit} noValidate>
        <p>Away for a while (a trip, a hospital stay)? Pause all your messages until a date: nothing is delivered or reminded meanwhile.</p>
        <label>
          Hold until
          <input
            type="date"
            name="holdUntil"
            value={until}
            min={dateValue(now + day)}
            max={dateValue(now + 365 * day)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "hold-error" : undefined}
            onChange={(e) => setUntil(e.target.value)}
          />
        </label>
        {error && <small id="hold-error">{error}</small>}
        <button type="submit" aria-busy={busy} disabled={busy}>
          Hold my messages
        </button>
      </form>
    </article>
  );
}

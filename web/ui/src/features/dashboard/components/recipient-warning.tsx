import { useState } from "react";
import { errorMessage } from "../../../components/form";
import { showToast } from "../../../lib/toasts";
import { notifyRecipient, type Message, type Warning } from "../api/messages";

/** The server's warning about one recipient address of the message just saved (its domain receives no email). */
export function RecipientWarning({ warnings, field }: { warnings?: Warning[]; field: string }) {
  const warning = warnings?.find((w) => w.field === field);
  if (!warning) return null;
  return (
    <small className="recipient-warning" role="status">
      ⚠ {warning.message}
    </small>
  );
}

/**
 * "Tell NAME now": emails a saved recipient that a message waits for them, without its content.
 * Shown for an address as it is saved, not while it is being edited.
 */
export function TellRecipientNow({ message, address }: { message?: Message; address: string }) {
  const [busy, setBusy] = useState(false);
  const saved = message?.recipients?.find((r) => r.recipient.toLowerCase() === address.trim().toLowerCase() && r.status === "pending");
  if (!message || !saved) return null;
  const tell = async () => {
    setBusy(true);
    try {
      await notifyRecipient(message.id, saved.recipient);
      showToast(`${saved.recipient} is told that a message waits for them.`, { kind: "success" });
    } catch (error) {
      showToast(errorMessage(error), { kind: "error" });
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="secondary outline tell-recipient" onClick={() => void tell()} disabled={busy} aria-busy={busy}>
      Tell {saved.name || saved.recipient} now
    </button>
  );
}

import { useState } from "react";
import { errorMessage } from "../../../components/form";
import { showToast } from "../../../lib/toasts";
import { notifyRecipient, type Message, type Recipient, type Warning } from "../api/messages";

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

/** The words of a bouncing recipient: which address returned which email, and the remote server's reason. */
export const bouncingWords = (address: string, b: NonNullable<Recipient["bouncing"]>) =>
  `${address} returned your ${b.email}: ${b.reason}`;

/**
 * A saved recipient whose address returned an email for good (a hard bounce), under its address in
 * the dialog: gone as soon as the address is changed, which is the fix.
 */
export function RecipientBouncing({ message, address }: { message?: Message; address: string }) {
  const saved = message?.recipients?.find((r) => r.recipient.toLowerCase() === address.trim().toLowerCase() && r.bouncing);
  if (!saved?.bouncing) return null;
  return (
    <small className="recipient-bouncing" role="status">
      ⚠ {bouncingWords(saved.recipient, saved.bouncing)}. Change the address to fix it.
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

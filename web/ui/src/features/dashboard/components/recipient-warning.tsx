import type { Warning } from "../api/messages";

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

/**
 * A destructive action's two answers: "Keep it", focused first, and the action in red, which shows
 * a spinner (and keeps its name for screen readers) while busy. Both are disabled while busy.
 */
export function ConfirmButtons({ action, busy, onKeep, onConfirm }: { action: string; busy: boolean; onKeep: () => void; onConfirm: () => void }) {
  return (
    <>
      <button type="button" className="secondary outline" onClick={onKeep} disabled={busy} autoFocus>
        Keep it
      </button>
      <button type="button" className="danger" onClick={onConfirm} disabled={busy} aria-busy={busy} aria-label={busy ? action : undefined}>
        {busy ? "" : action}
      </button>
    </>
  );
}

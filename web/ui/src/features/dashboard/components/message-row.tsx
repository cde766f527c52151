import { CalendarClock, History, Lock, Pencil } from "../../../components/lucide";
import { useEffect, useState } from "react";
import { errorMessage } from "../../../components/form";
import { postponeBlocked, postponedTo, postponeNoEffect } from "../../../lib/postpone-words";
import { showToast } from "../../../lib/toasts";
import { postponeMessage, updateMessage, type Message } from "../api/messages";
import { daysLeft, formatDate } from "./dates";
import { bouncingWords } from "./recipient-warning";
import { TimelineDialog } from "./timeline-dialog";

// SPEC.md section 9: the postponed toast stays 6 seconds.
const postponedToastMs = 6000;

// Postpone cannot move these; its button is disabled and says why.
const postponeBlockers: Partial<Record<Message["status"], string>> = {
  paused: "Paused: switch it on to postpone",
  sending: "Being delivered now",
  delivered: "Already delivered",
};

/**
 * The toast after a postpone: to when, or, when the server left the date as it was (its day
 * turned before this page's), why: never a success that did nothing.
 */
const postponed = (before: Message) => (after: Message) =>
  after.sendDate === before.sendDate
    ? { text: postponeNoEffect(formatDate(after.sendDate)), kind: "info" as const }
    : { text: postponedTo(formatDate(after.sendDate)), kind: "success" as const };

/** Re-renders when the server's postponeBlockedUntil passes, so the button comes back on its own. */
function useRenderAt(at: number | undefined) {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (at === undefined) return;
    const wait = at - Date.now();
    if (wait > 2 ** 31 - 1) return;
    // A wait already over (the row rendered before it) renders once more, at once.
    const timer = setTimeout(() => setTick((n) => n + 1), Math.max(wait, 0));
    return () => clearTimeout(timer);
  }, [at]);
}

// Each status in its word and its tone (app.css .status): colour is never the only sign.
const statuses: Record<Message["status"], { label: string; tone: "ok" | "warn" | "danger" | "info" | "muted" }> = {
  scheduled: { label: "Scheduled", tone: "info" },
  reminded: { label: "Reminded", tone: "warn" },
  sending: { label: "Sending", tone: "info" },
  delivered: { label: "Delivered", tone: "ok" },
  failed: { label: "Failed", tone: "danger" },
  paused: { label: "Paused", tone: "muted" },
};

export function MessageRow({
  message,
  onChanged,
  onEdit,
}: {
  message: Message;
  onChanged: (changed: Message) => void;
  onEdit: () => void;
}) {
  const [busy, setBusy] = useState<"toggle" | "postpone">();
  const [history, setHistory] = useState(false);
  // A message on its way or delivered can no longer change.
  const settled = message.status === "delivered" || message.status === "sending";
  useRenderAt(message.postponeBlockedUntil);
  // The server's rule (core/message_postpone_rule.go): made or postponed today, a postpone moves nothing.
  const cannotPostpone =
    postponeBlockers[message.status] ??
    (postponeBlocked(message.postponeBlockedUntil) ? postponeNoEffect(formatDate(message.sendDate)) : undefined);

  const run = async (
    action: "toggle" | "postpone",
    call: () => Promise<Message>,
    success?: (changed: Message) => { text: string; kind: "success" | "info" },
  ) => {
    setBusy(action);
    try {
      const changed = await call();
      onChanged(changed);
      if (success) {
        const toast = success(changed);
        showToast(toast.text, { kind: toast.kind, duration: postponedToastMs });
      }
    } catch (error) {
      showToast(errorMessage(error), { kind: "error" });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <tr>
      <td className="message-title">
        {message.title}
        {message.sealed && (
          <span className="sealed-mark" title="Sealed with a passphrase">
            <Lock size={14} aria-hidden="true" className="title-icon" />
            <span className="visually-hidden"> (sealed)</span>
          </span>
        )}
      </td>
      <td data-label="To">
        <span>
          {message.name}
          <br />
          <small>{message.recipient}</small>
          {(message.recipients?.length ?? 1) > 1 && (
            <>
              <br />
              <small>and {(message.recipients?.length ?? 1) - 1} more</small>
            </>
          )}
          {message.recipients
            ?.filter((r) => r.bouncing)
            .map((r) => (
              <small key={r.recipient} className="recipient-bouncing" role="note">
                ⚠ {bouncingWords(r.recipient, r.bouncing!)}.{" "}
                {!settled && (
                  <button type="button" className="link-button" onClick={onEdit}>
                    Change the address
                  </button>
                )}
              </small>
            ))}
        </span>
      </td>
      <td data-label="Delivery date">
        <time className="date" dateTime={new Date(message.sendDate).toISOString()}>
          {formatDate(message.sendDate)}
        </time>
      </td>
      <td data-label="Days left" className="days-left">
        {daysLeft(message)}
      </td>
      <td data-label="Status">
        <span>
          <span className={`status tone-${statuses[message.status]?.tone ?? "muted"}`}>{statuses[message.status]?.label ?? message.status}</span>
          {message.failureReason && (
            <>
              <br />
              <small className="failure-reason">{message.failureReason}</small>
            </>
          )}
        </span>
      </td>
      <td data-label="Active">
        <span className="control-tooltip" data-tooltip={message.isActive ? "On" : "Off"}>
          <input
            type="checkbox"
            role="switch"
            aria-label={`Active: ${message.title}`}
            checked={message.isActive}
            disabled={settled || busy !== undefined}
            onChange={() => run("toggle", () => updateMessage(message.id, { isActive: !message.isActive }))}
          />
        </span>
      </td>
      <td className="row-actions">
        <div className="action-group">
          <span className="control-tooltip" data-tooltip={cannotPostpone} data-placement="left">
            <button
              type="button"
              className="outline secondary with-icon"
              disabled={cannotPostpone !== undefined || busy !== undefined}
              aria-busy={busy === "postpone"}
              aria-describedby={cannotPostpone ? `postpone-reason-${message.id}` : undefined}
              onClick={() => run("postpone", () => postponeMessage(message.id), postponed(message))}
            >
              {busy !== "postpone" && <CalendarClock size={16} aria-hidden="true" />}
              Postpone
            </button>
          </span>
          {cannotPostpone && (
            <span id={`postpone-reason-${message.id}`} className="visually-hidden">
              {cannotPostpone}
            </span>
          )}
          <button type="button" className="quiet with-icon" disabled={settled} onClick={onEdit}>
            <Pencil size={16} aria-hidden="true" />
            Edit
          </button>
          <button type="button" className="quiet with-icon" aria-label={`History: ${message.title}`} onClick={() => setHistory(true)}>
            <History size={16} aria-hidden="true" />
            History
          </button>
        </div>
        {history && <TimelineDialog message={message} onClose={() => setHistory(false)} />}
      </td>
    </tr>
  );
}

import { useEffect, useState } from "react";
import { Alert, errorMessage } from "../../../components/form";
import { Modal } from "../../../components/modal";
import { Spinner } from "../../../components/loading";
import { Paperclip } from "../../../components/lucide";
import { formatDownloads, formatSize, listFiles, type StoredFile } from "../../../lib/uploads";
import { messageEvents, wentOut, type Message, type TimelineEvent } from "../api/messages";
import { openedSize } from "./upload-list";

const kindLabels: Record<TimelineEvent["kind"], string> = {
  created: "Created",
  edited: "Edited",
  postponed: "Postponed",
  rescheduled: "Rescheduled earlier",
  paused: "Paused",
  resumed: "Resumed",
  reminded: "Reminder sent",
  "reminder-failed": "Reminder failed",
  sent: "Sent",
  retrying: "Retrying",
  failed: "Failed",
  refused: "Refused by the recipient",
  webhook: "Webhook called",
  held: "Moved by your hold",
  bounced: "Returned by the recipient's mail server",
  complained: "Marked as spam by the recipient",
  opened: "Opened from the link",
  downloaded: "File downloaded",
};

const when = (ms: number) => new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** What one entry says beyond its kind: to whom, by whom, the server's reply, the next try. */
function describe(e: TimelineEvent) {
  const parts: string[] = [];
  // A sealed message's recipient fetched it from their link (docs/delivery.md).
  if (e.kind === "opened") return e.recipient ? `by ${e.recipient}` : "";
  // A recipient's first download of a file from their link (docs/attachments.md).
  if (e.kind === "downloaded") return [e.detail, e.recipient && `by ${e.recipient}`].filter(Boolean).join(" ");
  if (e.recipient) parts.push(`to ${e.recipient}`);
  if (e.actor) parts.push(`by ${e.actor}`);
  if ((e.kind === "postponed" || e.kind === "rescheduled") && e.detail) parts.push(`to ${when(Date.parse(e.detail))}`);
  else if (e.detail) parts.push(e.detail);
  if (e.nextAttemptAt) parts.push(`next attempt ${when(e.nextAttemptAt)}`);
  return parts.join(", ");
}

/**
 * A message's files as the recipients got them, each with how often it was downloaded from their
 * links: shown in the history of a message that went out (its dialog no longer opens). Nothing
 * when it has none, or the server keeps no files.
 */
function DeliveredFiles({ message }: { message: Message }) {
  const [files, setFiles] = useState<StoredFile[]>([]);
  const out = wentOut(message);
  useEffect(() => {
    if (!out) return;
    let live = true;
    listFiles(message.id).then(
      (list) => live && setFiles(list.filter((f) => f.state === "complete")),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [message.id, out]);
  if (files.length === 0) return null;
  return (
    <section className="timeline-files" aria-labelledby="timeline-files-title">
      <h3 id="timeline-files-title">
        <Paperclip size={18} aria-hidden="true" className="title-icon" /> Files
      </h3>
      <ul className="files-list">
        {files.map((f) => (
          <li key={f.id} className="file-row">
            <div className="file-head">
              <span className="file-name">{f.name}</span>
              <small className="file-status">{formatSize(openedSize(f))}</small>
              <small className="file-status file-downloads">{formatDownloads(f.downloads)}</small>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The message's history, read from the server when opened. */
export function TimelineDialog({ message, onClose }: { message: Message; onClose: () => void }) {
  const [events, setEvents] = useState<TimelineEvent[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    messageEvents(message.id).then(
      (list) => live && setEvents(list),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [message.id]);

  return (
    <Modal labelledBy="timeline-dialog-title" className="timeline-dialog" onClose={onClose}>
      <article>
        <header>
          <button type="button" aria-label="Close" rel="prev" onClick={onClose} />
          <h2 id="timeline-dialog-title">History of {message.title}</h2>
        </header>
        {error && <Alert>{error}</Alert>}
        {events === undefined ? (
          !error && <Spinner label="Loading the history" />
        ) : (
          <ol className="timeline">
            {events.map((e, i) => (
              <li key={i} data-kind={e.kind}>
                <time dateTime={new Date(e.at).toISOString()}>{when(e.at)}</time> <strong>{kindLabels[e.kind] ?? e.kind}</strong>
                {describe(e) && <> {describe(e)}</>}
              </li>
            ))}
          </ol>
        )}
        <DeliveredFiles message={message} />
        <footer>
          <button type="button" onClick={onClose} autoFocus>
            Close
          </button>
        </footer>
      </article>
    </Modal>
  );
}

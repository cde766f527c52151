import { useSignals } from "@preact/signals-react/runtime";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, apiPage } from "../../../lib/api-client";
import { idToken, signingOut, updateUser, type SessionUser } from "../../../lib/auth";

export type Interval = "1M" | "6M" | "12M";

/** One recipient of a message, with the delivery of their own email. */
export type Recipient = {
  name: string;
  recipient: string;
  status: "pending" | "sent" | "failed" | "refused";
  sentAt?: number;
  nextAttemptAt?: number;
  /** The mail server's reply of a failure, or of the last try while a retry waits. */
  lastError?: string;
  /** The address returned an email for good (a hard bounce): fixed by editing the address. */
  bouncing?: { reason: string; at: number; email: "message" | "notice" };
};

export type RecipientInput = Pick<Recipient, "name" | "recipient">;

/** Something the author should know about a message just saved, which did not stop the save. */
export type Warning = {
  /** recipient/domain-no-mail: the recipient's domain receives no email. */
  code: string;
  /** The field, named as in validation errors (recipient, recipients[1].recipient). */
  field?: string;
  message: string;
};

/** What a sealed message holds instead of its text: the envelope only the passphrase opens, and the hint. */
export type SealedLetter = {
  envelope?: string;
  hint?: string;
};

export type Message = {
  id: string;
  owner: string;
  title: string;
  name: string;
  recipient: string;
  message: string;
  /** A sealed message's envelope and hint (docs/sealed.md); message is then "". */
  sealed?: SealedLetter;
  interval: Interval;
  // Milliseconds since the epoch, as every time here.
  sendDate: number;
  isActive: boolean;
  featured: boolean;
  /** The webhook called on delivery (Business; set through the API, not shown by the app). */
  webhookUrl?: string;
  createdAt: number;
  status: "scheduled" | "reminded" | "sending" | "delivered" | "failed" | "paused";
  reminderSentAt?: number;
  deliveredAt?: number;
  /** Why a failed message could not be delivered. */
  failureReason?: string;
  /** A postpone before this time (ms) would not move the date (the server's rule): Postpone is disabled until then. */
  postponeBlockedUntil?: number;
  /** Every recipient, the first being name and recipient (absent from servers before it). */
  recipients?: Recipient[];
  /** On the reply to a create or an edit only: what the author should check. */
  warnings?: Warning[];
};

/** Whether the message went to a recipient: its files' downloads then mean something. */
export const wentOut = (message: Message) => message.status === "delivered" || (message.recipients ?? []).some((r) => r.status === "sent");

export type MessageFields = Pick<Message, "title" | "name" | "recipient" | "message" | "interval"> & {
  /** The whole list, when it has more than one or changed; else name and recipient are the one. */
  recipients?: RecipientInput[];
  /** A sealed message's envelope and hint instead of message (which is then ""). */
  sealed?: SealedLetter;
  /** The id a new sealed message's envelope is bound to (20 letters and digits, made here). */
  id?: string;
};

// The server's pages: the live list sends the first, the rest are read on demand.
export const pageSize = 50;
const maxPageSize = 200;

/** A page of the list, newest first: the first without a cursor. */
export const listMessages = (cursor?: string, limit?: number) => {
  const query = new URLSearchParams();
  if (limit !== undefined) query.set("limit", String(limit));
  if (cursor !== undefined) query.set("cursor", cursor);
  const q = query.toString();
  return apiPage<Message>(q === "" ? "messages" : `messages?${q}`);
};

/** The newest n messages, page after page, and whether there are more. */
async function listNewest(n: number) {
  let messages: Message[] = [];
  let next: string | undefined;
  do {
    const limit = Math.min(n - messages.length, maxPageSize);
    const page = await listMessages(next, messages.length === 0 && limit === pageSize ? undefined : limit);
    messages = messages.concat(page.items);
    next = page.nextCursor;
  } while (next !== undefined && messages.length < n);
  return { messages, more: next !== undefined };
}

/** Creates a message; a retry with the same key (a lost reply, a second click) makes no second one. */
export const createMessage = (fields: MessageFields, idempotencyKey: string) =>
  api<Message>("messages", { method: "POST", body: fields, headers: { "Idempotency-Key": idempotencyKey } });

/** A key for one message to create: random, without crypto.randomUUID (https only). */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export const updateMessage = (id: string, fields: Partial<MessageFields & Pick<Message, "isActive">>) =>
  api<Message>(`messages/${encodeURIComponent(id)}`, { method: "PATCH", body: fields });

export const postponeMessage = (id: string) =>
  api<Message>(`messages/${encodeURIComponent(id)}/postpone`, { method: "POST" });

export const deleteMessage = (id: string) => api<null>(`messages/${encodeURIComponent(id)}`, { method: "DELETE" });

// After a dropped stream, wait this long before opening it again.
const reconnectDelay = 5000;

/**
 * The signed-in user's messages, live: the stream sends the first page after every change,
 * whoever made it, and the session user when it changed. "Load more" shows older pages, which
 * are read again on each change so the whole list shown stays current. EventSource cannot send
 * headers, so the ID token rides in the query, and the stream is opened again with each new
 * token. Where the stream is unavailable the list is read once, and `apply` keeps it current
 * after this tab's own changes. A stream the server closed because the user opened too many
 * (stream/replaced) is not reopened until `resume`: windows would otherwise take turns closing
 * each other's. While this tab signs out (`signingOut`) the stream is closed and none is opened.
 */
export function useMessages() {
  useSignals();
  const token = idToken.value;
  const [messages, setMessages] = useState<Message[]>();
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string>();
  const [paused, setPaused] = useState(false);
  const [opened, setOpened] = useState(0);
  // How many messages are shown: a page more with each "Load more".
  const shown = useRef(pageSize);

  const read = useCallback(
    () =>
      listNewest(shown.current).then(
        (list) => (setMessages(list.messages), setMore(list.more), setError(undefined)),
        (caught: Error) => setError(caught.message),
      ),
    [],
  );

  useEffect(() => {
    if (token === undefined) return;
    let live = true;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const readIfLive = () => live && void read();
    const close = () => {
      clearTimeout(retry);
      source?.close();
    };

    const open = () => {
      if (signingOut.peek()) return;
      if (typeof EventSource === "undefined") {
        readIfLive();
        return;
      }
      source = new EventSource(`/api/messages/stream?token=${encodeURIComponent(token)}`);
      // The session user comes before a list whenever it changed: a plan that started after a
      // checkout or lapsed shows at once, with what it allows.
      source.addEventListener("me", (event) => updateUser(JSON.parse((event as MessageEvent<string>).data) as SessionUser));
      source.addEventListener("messages", (event) => {
        const first = JSON.parse((event as MessageEvent<string>).data) as Message[];
        if (shown.current > pageSize) {
          readIfLive(); // older pages are shown too: read them all again
          return;
        }
        setMessages(first);
        setMore(first.length === pageSize);
        setError(undefined);
      });
      // Both the server's "error" event (its token no longer holds, or another window took this
      // stream's place) and a lost connection land here. A lost connection is retried by the
      // browser unless it gave up.
      source.addEventListener("error", (event) => {
        const ended = event instanceof MessageEvent || source?.readyState === EventSource.CLOSED;
        if (!ended) return;
        source?.close();
        if (event instanceof MessageEvent && (JSON.parse(event.data as string) as { code: string }).code === "stream/replaced") {
          setPaused(true);
          return;
        }
        // The plain request renews an expired token or, when the session is gone, signs out.
        readIfLive();
        retry = setTimeout(open, reconnectDelay);
      });
    };
    open();
    // Closed as the signal is set, not on the next render: signOut revokes the token right after.
    const unsubscribe = signingOut.subscribe((ending) => {
      if (ending) close();
    });

    return () => {
      live = false;
      unsubscribe();
      close();
    };
  }, [token, opened, read]);

  /** Applies this tab's own change at once, ahead of the stream. */
  const apply = (change: (list: Message[]) => Message[]) => setMessages((list) => change(list ?? []));

  /** Shows the next page of older messages. */
  const loadMore = () => {
    shown.current += pageSize;
    return read();
  };

  /** Follows the list live again, after another window took the stream's place. */
  const resume = () => {
    setPaused(false);
    setOpened((n) => n + 1);
  };

  return { messages, more, loadMore, error, paused, resume, apply };
}

/** One entry of a message's timeline (GET /api/messages/{id}/events). */
export type TimelineEvent = {
  at: number;
  kind: "created" | "edited" | "postponed" | "rescheduled" | "paused" | "resumed" | "reminded" | "reminder-failed" | "sent" | "retrying" | "failed" | "refused" | "webhook" | "held" | "bounced" | "complained" | "opened" | "downloaded";
  actor?: string;
  recipient?: string;
  detail?: string;
  nextAttemptAt?: number;
};

/** The message's timeline, oldest first. */
export const messageEvents = (id: string) => api<TimelineEvent[]>(`messages/${encodeURIComponent(id)}/events`);

/** The email one recipient will receive, rendered by the server's delivery templates. */
export type EmailPreview = { to: { name: string; address: string }; subject: string; text: string; html: string };

/**
 * What each recipient of a message written so will receive; nothing is stored. With the id of a
 * stored message, the fields are its edit, and the email says the day it was written.
 */
export const previewMessage = (fields: MessageFields, id?: string) =>
  api<EmailPreview[]>(id ? `messages/${encodeURIComponent(id)}/preview` : "messages/preview", { method: "POST", body: fields });

/** Emails the author what each recipient will receive (5 a day per message); returns how many. */
export const sendTest = (id: string) =>
  api<{ sent: number }>(`messages/${encodeURIComponent(id)}/test`, { method: "POST" });

/** Tells one recipient now that a message waits for them, without its content (rate-limited, refusable). */
export const notifyRecipient = (id: string, recipient: string) =>
  api<{ sent: number }>(`messages/${encodeURIComponent(id)}/notify`, { method: "POST", body: { recipient } });

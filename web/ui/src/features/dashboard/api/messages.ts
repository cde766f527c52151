import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { api } from "../../../lib/api-client";
import { idToken, updateUser, type SessionUser } from "../../../lib/auth";

export type Interval = "1M" | "6M" | "12M";

export type Message = {
  id: string;
  owner: string;
  title: string;
  name: string;
  recipient: string;
  message: string;
  interval: Interval;
  // Milliseconds since the epoch, as every time here.
  sendDate: number;
  isActive: boolean;
  featured: boolean;
  createdAt: number;
  status: "scheduled" | "reminded" | "sending" | "delivered" | "failed" | "paused";
  reminderSentAt?: number;
  deliveredAt?: number;
};

export type MessageFields = Pick<Message, "title" | "name" | "recipient" | "message" | "interval">;

export const listMessages = () => api<Message[]>("messages");

export const createMessage = (fields: MessageFields) => api<Message>("messages", { method: "POST", body: fields });

export const updateMessage = (id: string, fields: Partial<MessageFields & Pick<Message, "isActive">>) =>
  api<Message>(`messages/${encodeURIComponent(id)}`, { method: "PATCH", body: fields });

export const postponeMessage = (id: string) =>
  api<Message>(`messages/${encodeURIComponent(id)}/postpone`, { method: "POST" });

export const deleteMessage = (id: string) => api<null>(`messages/${encodeURIComponent(id)}`, { method: "DELETE" });

// After a dropped stream, wait this long before opening it again.
const reconnectDelay = 5000;

/**
 * The signed-in user's messages, live: the stream sends the whole list after every change,
 * whoever made it, and the session user when it changed. EventSource cannot send headers, so the ID token rides in the query, and
 * the stream is opened again with each new token. Where the stream is unavailable the list
 * is read once, and `apply` keeps it current after this tab's own changes.
 */
export function useMessages() {
  useSignals();
  const token = idToken.value;
  const [messages, setMessages] = useState<Message[]>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (token === undefined) return;
    let live = true;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;

    const readOnce = () =>
      listMessages().then(
        (list) => live && (setMessages(list), setError(undefined)),
        (caught: Error) => live && setError(caught.message),
      );

    const open = () => {
      if (typeof EventSource === "undefined") {
        void readOnce();
        return;
      }
      source = new EventSource(`/api/messages/stream?token=${encodeURIComponent(token)}`);
      // The session user comes before a list whenever it changed: a plan that started after a
      // checkout or lapsed shows at once, with what it allows.
      source.addEventListener("me", (event) => updateUser(JSON.parse((event as MessageEvent<string>).data) as SessionUser));
      source.addEventListener("messages", (event) => {
        setMessages(JSON.parse((event as MessageEvent<string>).data) as Message[]);
        setError(undefined);
      });
      // Both the server's "error" event (its token no longer holds) and a lost connection
      // land here. A lost connection is retried by the browser unless it gave up.
      source.addEventListener("error", (event) => {
        const ended = event instanceof MessageEvent || source?.readyState === EventSource.CLOSED;
        if (!ended) return;
        source?.close();
        // The plain request renews an expired token or, when the session is gone, signs out.
        void readOnce();
        retry = setTimeout(open, reconnectDelay);
      });
    };
    open();

    return () => {
      live = false;
      clearTimeout(retry);
      source?.close();
    };
  }, [token]);

  /** Applies this tab's own change at once, ahead of the stream. */
  const apply = (change: (list: Message[]) => Message[]) => setMessages((list) => change(list ?? []));

  return { messages, error, apply };
}

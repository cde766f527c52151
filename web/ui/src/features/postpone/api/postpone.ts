import { api } from "../../../lib/api-client";

/** What the postpone page shows (GET /api/postpone/{id}?code=, no side effect). */
export type PostponeView = {
  title: string;
  sendDate: number;
  interval: "1M" | "6M" | "12M";
  status: string;
  /** The date the button would move the message to now (ms). */
  postponeTo: number;
  /** When present: a postpone before this time (ms) would not move the date. */
  postponeBlockedUntil?: number;
};

const postponePath = (id: string) => `postpone/${encodeURIComponent(id)}`;

export function getPostponeView(id: string, code: string) {
  return api<PostponeView>(`${postponePath(id)}?code=${encodeURIComponent(code)}`);
}

/** Postpones by the message's interval; returns the new sendDate. */
export function postponeMessage(id: string, code: string) {
  return api<{ sendDate: number }>(postponePath(id), { method: "POST", body: { code } });
}

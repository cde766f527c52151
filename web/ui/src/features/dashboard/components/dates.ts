import type { Interval } from "../api/messages";

export const intervalMonths: Record<Interval, number> = { "1M": 1, "6M": 6, "12M": 12 };

/** time + months, clamped to the end of the month (Jan 31 + 1 month = Feb 28/29), as the server does. */
export function addMonths(time: number, months: number) {
  const date = new Date(time);
  const day = date.getDate();
  date.setDate(1);
  date.setMonth(date.getMonth() + months);
  const lastDay = new Date(date.getFullYear(), date.getMonth() + 1, 0).getDate();
  date.setDate(Math.min(day, lastDay));
  return date.getTime();
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "long" });

export const formatDate = (time: number) => dateFormat.format(time);

const dayMs = 24 * 60 * 60 * 1000;

/**
 * The days-left column, counted and worded as the TUI's (tui/list.go daysLeft: whole days
 * rounded up, so the last 24 hours are "1 day"): "31 days", "1 day", "today" once due or while it
 * is being sent, "delivered" once it went out, and a dash for a message that failed.
 */
export function daysLeft(message: { status: string; sendDate: number }, now = Date.now()) {
  if (message.status === "delivered") return "delivered";
  if (message.status === "failed") return "—";
  const days = Math.ceil((message.sendDate - now) / dayMs);
  if (days <= 0 || message.status === "sending") return "today";
  return days === 1 ? "1 day" : `${days} days`;
}

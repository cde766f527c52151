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

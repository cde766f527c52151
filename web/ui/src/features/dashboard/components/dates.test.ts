import { expect, test } from "vitest";
import { daysLeft } from "./dates";

const day = 24 * 3600 * 1000;
const now = Date.UTC(2026, 10, 27, 12, 0);

test("days left reads as the TUI's column", () => {
  expect(daysLeft({ status: "scheduled", sendDate: now + 31 * day }, now)).toBe("31 days");
  expect(daysLeft({ status: "reminded", sendDate: now + day }, now)).toBe("1 day");
  expect(daysLeft({ status: "scheduled", sendDate: now + day + 1 }, now)).toBe("2 days");
  expect(daysLeft({ status: "scheduled", sendDate: now + 60_000 }, now)).toBe("1 day");
  expect(daysLeft({ status: "scheduled", sendDate: now }, now)).toBe("today");
  expect(daysLeft({ status: "scheduled", sendDate: now - 60_000 }, now)).toBe("today");
  expect(daysLeft({ status: "sending", sendDate: now + 2 * day }, now)).toBe("today");
  expect(daysLeft({ status: "paused", sendDate: now + 10 * day }, now)).toBe("10 days");
  expect(daysLeft({ status: "delivered", sendDate: now - day }, now)).toBe("delivered");
  expect(daysLeft({ status: "failed", sendDate: now - day }, now)).toBe("—");
});

import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { toasts } from "../../../lib/toasts";

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" });
let blockedUntil: number | undefined;
import { renderRoute } from "../../../testing/render-route";

const sendDate = Date.UTC(2026, 3, 1, 9, 0);
const later = Date.UTC(2026, 9, 1, 9, 0);

type Call = { url: string; method: string; body?: string };
let calls: Call[] = [];

function envelope(data: unknown, status = 200) {
  return new Response(JSON.stringify({ status: "success", data }), { status });
}

beforeEach(() => {
  calls = [];
  blockedUntil = undefined;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const method = init?.method ?? "GET";
      calls.push({ url, method, body: init?.body as string | undefined });
      if (url.startsWith("/api/postpone/m1?code=") && method === "GET") {
        if (!url.endsWith("code=ABCDEFGHIJ")) {
          return new Response(
            JSON.stringify({ status: "error", code: "message/invalid-postpone-code", message: "This postpone link is not valid." }),
            { status: 403 },
          );
        }
        return envelope({ title: "For Charles", sendDate, interval: "6M", status: "reminded", postponeTo: later, postponeBlockedUntil: blockedUntil });
      }
      if (url === "/api/postpone/m1" && method === "POST") {
        return envelope({ sendDate: later });
      }
      return new Response(JSON.stringify({ status: "error", code: "auth/invalid-user-token", message: "Please sign in." }), { status: 401 });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  toasts.value = [];
});

test("the link shows the title and delivery date and postpones only on the button", async () => {
  renderRoute("/postpone/m1?code=ABCDEFGHIJ");

  expect(await screen.findByText("For Charles")).toBeTruthy();
  const shown = document.querySelector("time.date");
  expect(shown?.getAttribute("datetime")).toBe(new Date(sendDate).toISOString());
  // Before the click, the date the button would set.
  expect(document.querySelector("time.postpone-to")?.getAttribute("datetime")).toBe(new Date(later).toISOString());
  expect(screen.getByText(dateFormat.format(later))).toBeTruthy();
  await waitFor(() => expect(document.title).toBe("Postpone - Sendlater"));
  expect(calls.some((c) => c.method === "POST" && c.url.startsWith("/api/postpone"))).toBe(false);

  fireEvent.click(screen.getByRole("button", { name: "Postpone" }));

  expect(await screen.findByText(`The message is postponed! It will be delivered on ${dateFormat.format(later)}.`)).toBeTruthy();
  const post = calls.find((c) => c.method === "POST" && c.url === "/api/postpone/m1");
  expect(post?.body).toBe(JSON.stringify({ code: "ABCDEFGHIJ" }));
  expect(document.querySelector("time.date")?.getAttribute("datetime")).toBe(new Date(later).toISOString());
  // Another postpone today would move nothing.
  expect((screen.getByRole("button", { name: "Postpone" }) as HTMLButtonElement).disabled).toBe(true);
});

test("a link opened on the day the date was set says a postpone would not move it, with the button disabled", async () => {
  blockedUntil = Date.now() + 3_600_000;
  renderRoute("/postpone/m1?code=ABCDEFGHIJ");

  const reason = await screen.findByText(`Postponing today would not move the date: it is already ${dateFormat.format(sendDate)}.`);
  const button = screen.getByRole("button", { name: "Postpone" }) as HTMLButtonElement;
  expect(button.disabled).toBe(true);
  expect(button.getAttribute("aria-describedby")).toBe(reason.id);
  expect(document.querySelector("time.postpone-to")).toBeNull();
});

test("the postponed toast goes after 6 seconds", async () => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  renderRoute("/postpone/m1?code=ABCDEFGHIJ");
  fireEvent.click(await screen.findByRole("button", { name: "Postpone" }));
  const toast = `The message is postponed! It will be delivered on ${dateFormat.format(later)}.`;
  await screen.findByText(toast);

  act(() => vi.advanceTimersByTime(5900));
  expect(screen.queryByText(toast)).toBeTruthy();
  act(() => vi.advanceTimersByTime(200));
  expect(screen.queryByText(toast)).toBeNull();
});

test("a wrong code shows the server's message, and the way on: the dashboard", async () => {
  renderRoute("/postpone/m1?code=WRONG");

  expect((await screen.findByRole("alert")).textContent).toBe("This postpone link is not valid.");
  expect(screen.queryByRole("button", { name: "Postpone" })).toBeNull();
  // Never a dead end (issue 29): the page ends with one step on.
  expect(screen.getByRole("button", { name: "Open your dashboard" }).getAttribute("href")).toBe("/dashboard");
});

import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { startAnalytics } from "./analytics";
import { user, type SessionUser } from "./auth";
import { pagePath } from "./page-path";

const settings = { scriptUrl: "https://stats.example.org/script.js", websiteId: "site-1" };
let stop: () => void = () => undefined;

beforeEach(() => {
  vi.useFakeTimers();
  user.value = undefined;
  pagePath.value = "/";
});

afterEach(() => {
  stop();
  delete window.umami;
  document.head.querySelectorAll("script").forEach((script) => script.remove());
  pagePath.value = undefined;
  user.value = undefined;
  vi.useRealTimers();
});

function fakeTracker() {
  const calls: unknown[] = [];
  window.umami = {
    identify: (id) => calls.push(["identify", id]),
    track: (props) => calls.push(["track", props({ website: "site-1" })]),
  };
  return calls;
}

test("loads the script with its own tracking off", () => {
  stop = startAnalytics(settings);

  const script = document.head.querySelector<HTMLScriptElement>('script[src="https://stats.example.org/script.js"]');
  expect(script?.getAttribute("data-website-id")).toBe("site-1");
  expect(script?.getAttribute("data-auto-track")).toBe("false");
});

test("page views on load and on route changes, and the uid once signed in, go out every 3 seconds", () => {
  stop = startAnalytics(settings);
  const calls = fakeTracker();

  pagePath.value = "/pricing";
  user.value = { uid: "u1" } as SessionUser;
  expect(calls).toEqual([]);

  vi.advanceTimersByTime(3000);
  expect(calls).toEqual([
    ["track", { website: "site-1", url: "/" }],
    ["track", { website: "site-1", url: "/pricing" }],
    ["identify", "u1"],
  ]);

  pagePath.value = "/dashboard";
  vi.advanceTimersByTime(2999);
  expect(calls).toHaveLength(3);
  vi.advanceTimersByTime(1);
  expect(calls.at(-1)).toEqual(["track", { website: "site-1", url: "/dashboard" }]);
});

test("a script that has not loaded after 10 seconds: the queue is dropped and nothing more is recorded", () => {
  stop = startAnalytics(settings);
  pagePath.value = "/faq";

  vi.advanceTimersByTime(12_000);
  const calls = fakeTracker();
  pagePath.value = "/about";
  vi.advanceTimersByTime(6000);

  expect(calls).toEqual([]);
});

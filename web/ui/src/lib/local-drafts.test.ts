import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { flushLocalDrafts, localDraftPrefix } from "./local-drafts";

const fetchMock = vi.fn<typeof fetch>();
const ok = (data: unknown) => Response.json({ status: "success", data });

beforeEach(() => {
  vi.stubGlobal("fetch", fetchMock);
  localStorage.clear();
});

afterEach(() => {
  fetchMock.mockReset();
  vi.unstubAllGlobals();
  localStorage.clear();
});

const keep = (uid: string, key: string, updatedAt: number, message = "Dear Grace,") =>
  localStorage.setItem(localDraftPrefix(uid) + key, JSON.stringify({ title: "T", recipients: [], message, interval: "1m", updatedAt }));

test("a sign-out hands newer drafts to the server and leaves none of this user's in the browser", async () => {
  keep("u1", "new", 2_000, "newer here");
  keep("u1", "m1", 1_000, "older here");
  keep("u2", "new", 1_000, "someone else's");
  const puts: { url: string; body: unknown }[] = [];
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    if (init?.method === "PUT") {
      puts.push({ url, body: JSON.parse(String(init.body)) });
      return ok({});
    }
    return ok(url.endsWith("/m1") ? { updatedAt: 5_000 } : null);
  });

  await flushLocalDrafts("u1");

  expect(puts).toEqual([{ url: "/api/drafts/new", body: { title: "T", recipients: [], message: "newer here", interval: "1m" } }]);
  expect(localStorage.getItem(localDraftPrefix("u1") + "new")).toBeNull();
  expect(localStorage.getItem(localDraftPrefix("u1") + "m1")).toBeNull();
  expect(localStorage.getItem(localDraftPrefix("u2") + "new")).not.toBeNull();
});

test("a draft the server did not take stays in the browser: a sign-out never loses a letter", async () => {
  keep("u1", "new", 2_000);
  fetchMock.mockImplementation(async (_input, init) => {
    if (init?.method === "PUT") throw new TypeError("Failed to fetch");
    return ok(null);
  });

  await flushLocalDrafts("u1");

  expect(localStorage.getItem(localDraftPrefix("u1") + "new")).not.toBeNull();
});

test("a server that does not answer delays the sign-out by the timeout at most", async () => {
  keep("u1", "new", 2_000);
  fetchMock.mockImplementation(() => new Promise(() => {}));
  const started = Date.now();

  await flushLocalDrafts("u1", 50);

  expect(Date.now() - started).toBeLessThan(2_000);
  expect(localStorage.getItem(localDraftPrefix("u1") + "new")).not.toBeNull();
});

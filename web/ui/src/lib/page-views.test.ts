import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { pageHead, notFoundHead } from "../config/pages";
import { applyHead, publicPage } from "./head";
import { startPageViews } from "./page-views";

let stop: () => void = () => undefined;
let sent: { url: string; init: RequestInit }[] = [];

beforeEach(() => {
  sent = [];
  publicPage.value = undefined;
  vi.stubGlobal("fetch", (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return Promise.resolve(new Response('{"status":"success","data":null}'));
  });
});

afterEach(() => {
  stop();
  vi.unstubAllGlobals();
});

const paths = () => sent.map(({ init }) => JSON.parse(init.body as string).path);

test("the public page on load and every public page the visitor moves to are counted, by their canonical path", () => {
  applyHead(pageHead("home"));
  stop = startPageViews();
  applyHead(pageHead("pricing"));
  applyHead(pageHead("auth", "signin"));
  applyHead(pageHead("pricing"));

  expect(paths()).toEqual(["/", "/pricing", "/auth/signin", "/pricing"]);
  const { url, init } = sent[0]!;
  expect(url).toBe("/api/pageviews");
  expect(init.method).toBe("POST");
  expect(init.credentials).toBe("omit");
  expect(init.headers).toEqual({ "Content-Type": "application/json" });
  expect(JSON.parse(init.body as string)).toEqual({ path: "/" });
});

test("signed-in pages, email links and 404 pages are not counted", () => {
  stop = startPageViews();
  applyHead(pageHead("dashboard"));
  applyHead(pageHead("settings", "general"));
  applyHead(pageHead("firebaseAction"));
  applyHead(notFoundHead("/no/such/page"));

  expect(sent).toEqual([]);
});

test("a failed count is dropped quietly", async () => {
  vi.stubGlobal("fetch", () => Promise.reject(new TypeError("network down")));
  stop = startPageViews();
  applyHead(pageHead("faq"));
  await Promise.resolve();
  expect(publicPage.value).toBe("/faq");
});

test("the view the first script counted before the app loaded is not counted again", () => {
  applyHead(pageHead("home"));
  stop = startPageViews("/");
  applyHead(pageHead("pricing"));
  applyHead(pageHead("home"));

  expect(paths()).toEqual(["/pricing", "/"]);
});

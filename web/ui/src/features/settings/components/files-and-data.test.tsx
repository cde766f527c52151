import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import { formatBytes } from "./files-and-data";

const general = { "GET me/providers": () => ok([]), "GET auth/providers": () => ok([]) };
const pro = { plan: "pro", files: 3, used: 1_234_567, limit: 250_000_000, perMessage: 25_000_000, maxFiles: 10 };
const starter = { plan: "starter", files: 0, used: 0, limit: 0, perMessage: 0, maxFiles: 10 };

const saved: string[] = [];
beforeEach(() => {
  saved.length = 0;
  URL.createObjectURL = vi.fn(() => "blob:export");
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
});

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const section = async () => (await screen.findByRole("heading", { name: "Files and your data" })).closest("section") as HTMLElement;

test("bytes read as a file manager shows them", () => {
  expect(formatBytes(0)).toBe("0 bytes");
  expect(formatBytes(1)).toBe("1 byte");
  expect(formatBytes(1_500)).toBe("1.5 KB");
  expect(formatBytes(25_000_000)).toBe("25 MB");
  expect(formatBytes(2_000_000_000)).toBe("2 GB");
});

test("Pro sees the meter of the bytes used, the files, and both exports; the zip downloads with the session", async () => {
  signInAs({ planId: "pro", planIsActive: true }, "tok");
  const calls = mockApi({ ...general, "GET me/files": () => ok(pro), "GET me/export?format=zip": () => ok("zip bytes") });
  renderRoute("/settings/general");

  const box = await section();
  const meter = await within(box).findByRole("meter", { name: "Storage for files" });
  expect(meter.getAttribute("aria-valuenow")).toBe("1234567");
  expect(meter.getAttribute("aria-valuemax")).toBe("250000000");
  expect(meter.getAttribute("aria-valuetext")).toBe("1.2 MB of 250 MB used");
  expect(within(box).getByText("1.2 MB of 250 MB used")).toBeTruthy();
  expect(within(box).getByText(/3 files · up to 25 MB and 10 files a message/)).toBeTruthy();
  expect(within(box).queryByText(/Upgrade to attach files/)).toBeNull();

  fireEvent.click(within(box).getByRole("button", { name: "Download with files (zip)" }));
  await waitFor(() => expect(saved).toEqual(["sendlater-export.zip"]));
  const zip = calls.find((call) => call.path === "me/export?format=zip");
  expect(zip?.authorization).toBe("Bearer tok");
  expect(within(box).getByRole("button", { name: "Download without files (JSON)" })).toBeTruthy();
});

test("Starter sees the upgrade hint and the JSON export only", async () => {
  signInAs();
  mockApi({ ...general, "GET me/files": () => ok(starter), "GET me/export": () => ok({ user: { uid: "u1" }, messages: [] }) });
  renderRoute("/settings/general");

  const box = await section();
  const upgrade = await within(box).findByRole("link", { name: "Upgrade to attach files" });
  expect(upgrade.getAttribute("href")).toBe("/pricing");
  expect(within(box).queryByRole("meter")).toBeNull();
  expect(within(box).queryByRole("button", { name: /zip/ })).toBeNull();
  fireEvent.click(within(box).getByRole("button", { name: "Download your data (JSON)" }));
  await waitFor(() => expect(saved).toHaveLength(1));
  expect(saved[0]).toMatch(/^sendlater-export-\d{4}-\d{2}-\d{2}\.json$/);
});

test("a refused export says why, in the server's words", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  mockApi({
    ...general,
    "GET me/files": () => ok(pro),
    "GET me/export?format=zip": () => fail(429, "auth/too-many-requests", "An export of your account is being made; try again once it is done."),
  });
  renderRoute("/settings/general");

  const box = await section();
  fireEvent.click(await within(box).findByRole("button", { name: "Download with files (zip)" }));
  expect(await within(box).findByText("An export of your account is being made; try again once it is done.")).toBeTruthy();
  expect(saved).toEqual([]);
});

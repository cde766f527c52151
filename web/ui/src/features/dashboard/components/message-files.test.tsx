import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fetchPart, transport, xhrPart, type StoredFile } from "../../../lib/uploads";
import { deferred, empty, fail, mockApi, ok, type ApiCall } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import type { Message } from "../api/messages";

beforeEach(() => {
  transport.sendPart = fetchPart;
});

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
  transport.sendPart = xhrPart;
});

const message: Message = {
  id: "m1",
  owner: "u1",
  title: "For Charles",
  name: "Charles",
  recipient: "charles@example.com",
  message: "The key is under the mat.",
  interval: "6M",
  sendDate: Date.UTC(2027, 0, 15, 9, 0),
  isActive: true,
  featured: false,
  createdAt: Date.UTC(2026, 6, 15),
  status: "scheduled",
};

const stored = (overrides: Partial<StoredFile>): StoredFile => ({
  id: "f1",
  messageId: "m1",
  name: "deed.pdf",
  type: "application/pdf",
  size: 2_400_000,
  executable: false,
  clientSealed: false,
  state: "complete",
  offset: 2_400_000,
  partSize: 1000,
  createdAt: 1,
  completedAt: 2,
  ...overrides,
});

const pro = { planId: "pro" as const, planIsActive: true, messageLimit: null, recipientLimit: 10 };

async function openEdit() {
  fireEvent.click(await screen.findByRole("button", { name: "Edit" }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  return within(dialog).getByRole("region", { name: "Files" });
}

const pick = (files: HTMLElement, ...picked: File[]) =>
  fireEvent.change(files.querySelector('input[type="file"]')!, { target: { files: picked } });

const of = (all: ApiCall[], method: string) => all.filter((c) => c.method === method && c.path.startsWith("messages/m1/files"));

test("a message's files show with their sizes, the executable mark and a download for the author", async () => {
  signInAs(pro);
  mockApi({
    "GET messages": () => ok([message]),
    "GET messages/m1/files": () => ok([stored({}), stored({ id: "f2", name: "setup.exe", size: 812, executable: true, type: "application/octet-stream" })]),
    "POST messages/m1/preview": () => ok([]),
  });
  renderRoute("/dashboard");
  const files = await openEdit();
  const rows = await within(files).findAllByRole("listitem");
  expect(rows).toHaveLength(2);
  expect(within(rows[0]!).getByRole("button", { name: "Download deed.pdf" })).toBeTruthy();
  expect(within(rows[0]!).getByText("2.4 MB")).toBeTruthy();
  expect(within(rows[1]!).getByText("812 bytes")).toBeTruthy();
  expect(within(rows[1]!).getByText("Program")).toBeTruthy();
  expect(within(rows[1]!).getByRole("button", { name: "Remove setup.exe" })).toBeTruthy();

  // The preview lists them too.
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
  const preview = await within(dialog).findByRole("region", { name: "Preview" });
  expect(within(preview).getByText("2 files with the message")).toBeTruthy();
  expect(within(preview).getByText("deed.pdf (2.4 MB)")).toBeTruthy();
  expect(within(preview).getByText("setup.exe (812 bytes)")).toBeTruthy();
});

test("Starter sees the upgrade hint instead of the picker", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([message]), "GET messages/m1/files": () => ok([]) });
  renderRoute("/dashboard");
  const files = await openEdit();
  expect(within(files).getByText(/go with messages on the Pro and Business plans/)).toBeTruthy();
  expect(within(files).queryByRole("button", { name: "Attach files" })).toBeNull();
});

test("a file attached to a stored message uploads with a labelled progress bar, and is announced", async () => {
  signInAs(pro);
  let record: StoredFile | undefined;
  const second = deferred<void>();
  const api = mockApi({
    "GET messages": () => ok([message]),
    "GET messages/m1/files": () => ok([]),
    "POST messages/m1/files": (c) => ok((record = stored({ ...(c.body as object), state: "uploading", offset: 0 })), 201),
    "PATCH messages/m1/files/f1": async (c) => {
      if (record!.offset === 1000) await second.promise;
      record!.offset += c.blob!.size;
      if (record!.offset >= record!.size) record!.state = "complete";
      return empty(204, { "Upload-Offset": String(record!.offset) });
    },
    "GET messages/m1/files/f1": () => ok(record),
  });
  renderRoute("/dashboard");
  const files = await openEdit();
  pick(files, new File(["x".repeat(2500)], "letter.txt"));
  const bar = await within(files).findByRole("progressbar", { name: "letter.txt" });
  await waitFor(() => expect(bar.getAttribute("aria-valuenow")).toBe("40"));
  expect(within(files).getByText("1 KB of 2.5 KB")).toBeTruthy();
  second.resolve();
  expect(await within(files).findByRole("button", { name: "Download letter.txt" })).toBeTruthy();
  expect(files.querySelector("[data-announce]")!.textContent).toBe("letter.txt uploaded.");
  expect(of(api, "PATCH").map((c) => c.headers["Upload-Offset"])).toEqual(["0", "1000", "2000"]);
});

test("cancel stops the upload and deletes the file on the server", async () => {
  signInAs(pro);
  let record: StoredFile | undefined;
  const held = deferred<void>();
  const api = mockApi({
    "GET messages": () => ok([message]),
    "GET messages/m1/files": () => ok([]),
    "POST messages/m1/files": (c) => ok((record = stored({ ...(c.body as object), state: "uploading", offset: 0 })), 201),
    "PATCH messages/m1/files/f1": async (c) => {
      await held.promise;
      record!.offset += c.blob!.size;
      return empty(204, { "Upload-Offset": String(record!.offset) });
    },
    "DELETE messages/m1/files/f1": () => ok(null),
  });
  renderRoute("/dashboard");
  const files = await openEdit();
  pick(files, new File(["x".repeat(2500)], "letter.txt"));
  await waitFor(() => expect(of(api, "PATCH")).toHaveLength(1));
  fireEvent.click(within(files).getByRole("button", { name: "Cancel letter.txt" }));
  await waitFor(() => expect(of(api, "DELETE")).toHaveLength(1));
  held.resolve();
  await waitFor(() => expect(within(files).queryByRole("listitem")).toBeNull());
  expect(of(api, "PATCH")).toHaveLength(1);
});

test("over the plan's limit, the file says the server's sentence", async () => {
  signInAs(pro);
  mockApi({
    "GET messages": () => ok([message]),
    "GET messages/m1/files": () => ok([]),
    "POST messages/m1/files": () => fail(403, "plan/limit-reached", "A message holds up to 25 MB of files on your plan.", { size: "at most 25 MB" }),
  });
  renderRoute("/dashboard");
  const files = await openEdit();
  pick(files, new File(["x"], "huge.iso"));
  expect(await within(files).findByText("A message holds up to 25 MB of files on your plan.")).toBeTruthy();
  expect(within(files).getByRole("button", { name: "Retry huge.iso" })).toBeTruthy();
});

test("a new message's files wait, then upload to the message Create made", async () => {
  signInAs(pro);
  let record: StoredFile | undefined;
  const api = mockApi({
    "GET messages": () => ok([]),
    "PUT drafts/new": (c) => ok({ key: "new", ...(c.body as object), updatedAt: 1 }),
    "DELETE drafts/new": () => ok(null),
    "GET drafts/m1": () => ok(null),
    "POST messages": () => ok(message, 201),
    "POST messages/m1/files": (c) => ok((record = stored({ ...(c.body as object), state: "uploading", offset: 0 })), 201),
    "PATCH messages/m1/files/f1": (c) => {
      record!.offset += c.blob!.size;
      if (record!.offset >= record!.size) record!.state = "complete";
      return empty(204, { "Upload-Offset": String(record!.offset) });
    },
    "GET messages/m1/files/f1": () => ok(record),
  });
  renderRoute("/dashboard");
  const add = (await screen.findByRole("button", { name: "Add Message" })) as HTMLButtonElement;
  await waitFor(() => expect(add.disabled).toBe(false));
  fireEvent.click(add);
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  for (const [label, value] of [["Title", "For Charles"], ["Recipient name", "Charles"], ["Recipient email", "charles@example.com"], ["Message", "Hello"]]) {
    fireEvent.change(within(dialog).getByLabelText(label!), { target: { value } });
  }
  pick(within(dialog).getByRole("region", { name: "Files" }), new File(["y".repeat(1500)], "map.png"));
  expect(within(dialog).getByText("Uploads when the message is created")).toBeTruthy();
  expect(of(api, "POST")).toHaveLength(0);
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  // The dialog stays, as the saved message's, while the file goes.
  const edit = await screen.findByRole("dialog", { name: "Update Message" });
  expect(await within(edit).findByRole("button", { name: "Download map.png" })).toBeTruthy();
  expect(of(api, "POST")[0]!.body).toEqual({ name: "map.png", size: 1500 });
});

test("a server that keeps no files shows no Files section", async () => {
  signInAs(pro);
  mockApi({ "GET messages": () => ok([message]) }); // the files endpoint: the unknown endpoint's 404
  renderRoute("/dashboard");
  fireEvent.click(await screen.findByRole("button", { name: "Edit" }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  await waitFor(() => expect(within(dialog).queryByRole("region", { name: "Files" })).toBeNull());
  expect(within(dialog).queryByRole("alert")).toBeNull();
});

test("once the message went to a recipient, each stored file says how often it was downloaded; before, nothing", async () => {
  signInAs(pro);
  // Sent to Charles, failed for Dora: the dialog still opens.
  const partly: Message = {
    ...message,
    status: "failed",
    recipients: [
      { name: "Charles", recipient: "charles@example.com", status: "sent", sentAt: 3 },
      { name: "Dora", recipient: "dora@example.com", status: "failed" },
    ],
  };
  const downloads = [
    { recipient: "charles@example.com", count: 2, firstAt: 4, lastAt: 5 },
    { recipient: "dora@example.com", count: 3, firstAt: 4, lastAt: 6 },
  ];
  let shown = [partly];
  mockApi({
    "GET messages": () => ok(shown),
    "GET messages/m1/files": () => ok([stored({ downloads }), stored({ id: "f2", name: "map.png", size: 900 })]),
  });
  const { unmount } = renderRoute("/dashboard");
  const files = await openEdit();
  const rows = await within(files).findAllByRole("listitem");
  expect(within(rows[0]!).getByText("Downloaded 5 times by 2 recipients")).toBeTruthy();
  expect(within(rows[1]!).getByText("Not downloaded yet")).toBeTruthy();
  unmount();

  // Not sent yet: no downloads to speak of.
  shown = [message];
  renderRoute("/dashboard");
  const waiting = await openEdit();
  await within(waiting).findAllByRole("listitem");
  expect(within(waiting).queryByText(/downloaded/i)).toBeNull();
});

test("a delivered message's history lists its files with their downloads", async () => {
  signInAs(pro);
  const delivered: Message = {
    ...message,
    status: "delivered",
    recipients: [{ name: "Charles", recipient: "charles@example.com", status: "sent", sentAt: 3 }],
  };
  mockApi({
    "GET messages": () => ok([delivered]),
    "GET messages/m1/events": () => ok([{ at: 3, kind: "sent", recipient: "charles@example.com" }]),
    "GET messages/m1/files": () =>
      ok([
        stored({ downloads: [{ recipient: "charles@example.com", count: 1, firstAt: 4, lastAt: 4 }] }),
        stored({ id: "f2", name: "map.png", size: 900 }),
        stored({ id: "f3", name: "half.mov", state: "uploading", offset: 10 }),
      ]),
  });
  renderRoute("/dashboard");
  fireEvent.click(await screen.findByRole("button", { name: "History: For Charles" }));
  const dialog = screen.getByRole("dialog", { name: "History of For Charles" });
  const files = await within(dialog).findByRole("region", { name: "Files" });
  const rows = within(files).getAllByRole("listitem");
  expect(rows.map((r) => r.querySelector(".file-name")!.textContent)).toEqual(["deed.pdf", "map.png"]);
  expect(within(rows[0]!).getByText("2.4 MB")).toBeTruthy();
  expect(within(rows[0]!).getByText("Downloaded once")).toBeTruthy();
  expect(within(rows[1]!).getByText("Not downloaded yet")).toBeTruthy();
});

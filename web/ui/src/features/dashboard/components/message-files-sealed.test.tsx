import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { sealMessage } from "../../../lib/sealed";
import { FileKeys, openFile, sealedFileSize, sealFile } from "../../../lib/sealed-file";
import { fetchPart, transport, xhrPart, type StoredFile } from "../../../lib/uploads";
import { empty, mockApi, ok, type ApiCall } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import type { Message } from "../api/messages";

// Sealed messages' files in the dialog: sealed here before they go, opened here when the author
// downloads them. The passphrase's key is Argon2id at the default costs: slow, so made once.
const passphrase = "violet harbor quietly mends seven copper lanterns";
const letter = "Dear Charles,\nthe key is under the mat.";
const secret = "the deed of the house, page one";
const pro = { planId: "pro" as const, planIsActive: true, messageLimit: null, recipientLimit: 10 };
let envelope = "";
let sealedDeed: Blob;

beforeAll(async () => {
  envelope = await sealMessage(passphrase, "m1", letter);
  sealedDeed = await sealFile(new FileKeys(passphrase), "m1", new Blob([secret]));
}, 60_000);

beforeEach(() => {
  transport.sendPart = fetchPart;
});

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  transport.sendPart = xhrPart;
});

const plainMessage: Message = {
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
const sealedMessage = (): Message => ({ ...plainMessage, message: "", sealed: { envelope, hint: "Lisbon" } });

const stored = (overrides: Partial<StoredFile>): StoredFile => ({
  id: "f1",
  messageId: "m1",
  name: "deed.pdf",
  type: "application/octet-stream",
  size: sealedDeed.size,
  executable: false,
  clientSealed: true,
  state: "complete",
  offset: sealedDeed.size,
  partSize: 1 << 20,
  createdAt: 1,
  completedAt: 2,
  ...overrides,
});

/** A server's files endpoints for m1, keeping the bytes sent. */
function filesServer(initial: StoredFile[] = []) {
  const files = [...initial];
  const bytes = new Map<string, Blob[]>();
  return {
    files,
    bytes,
    handlers: {
      "GET messages/m1/files": () => ok(files),
      "POST messages/m1/files": (c: ApiCall) => {
        const body = c.body as { name: string; size: number };
        const file = stored({ id: `f${files.length + 1}`, ...body, state: "uploading", offset: 0 });
        files.push(file);
        bytes.set(file.id, []);
        return ok(file, 201);
      },
      ...Object.fromEntries(
        ["f1", "f2"].flatMap((id) => [
          [
            `PATCH messages/m1/files/${id}`,
            (c: ApiCall) => {
              const file = files.find((f) => f.id === id)!;
              bytes.get(id)!.push(c.blob!);
              file.offset += c.blob!.size;
              if (file.offset >= file.size) file.state = "complete";
              return empty(204, { "Upload-Offset": String(file.offset) });
            },
          ],
          [`GET messages/m1/files/${id}`, () => ok(files.find((f) => f.id === id))],
        ]),
      ),
    },
  };
}

const pick = (files: HTMLElement, ...picked: File[]) =>
  fireEvent.change(files.querySelector('input[type="file"]')!, { target: { files: picked } });

async function openEdit() {
  fireEvent.click(await screen.findByRole("button", { name: "Edit" }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  return { dialog, files: within(dialog).getByRole("region", { name: "Files" }) };
}

/** The bytes the page saves through a blob URL, by the file's name. */
function captureDownloads() {
  const saved: Blob[] = [];
  vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: (b: Blob) => (saved.push(b), "blob:x"), revokeObjectURL: () => undefined }));
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
  return saved;
}

const text = async (b: Blob) => new TextDecoder().decode(await b.arrayBuffer());
/** A reply of a Blob's bytes (the test's Blobs are jsdom's, which fetch's Response cannot read). */
const bytesReply = async (b: Blob) => new Response(new Uint8Array(new Uint8Array(await b.arrayBuffer())), { status: 200 });

test("a new sealed message's file is sealed with the passphrase before it goes; its row keeps its own name and size", async () => {
  signInAs(pro);
  const server = filesServer();
  const api = mockApi({
    "GET messages": () => ok([]),
    "PUT drafts/new": (c) => ok({ key: "new", ...(c.body as object), updatedAt: 1 }),
    "DELETE drafts/new": () => ok(null),
    // The server takes the id the dialog made; this one answers m1, which the files go to.
    "POST messages": () => ok(sealedMessage(), 201),
    ...server.handlers,
  });
  renderRoute("/dashboard");
  const add = (await screen.findByRole("button", { name: "Add Message" })) as HTMLButtonElement;
  await waitFor(() => expect(add.disabled).toBe(false));
  fireEvent.click(add);
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  for (const [label, value] of [["Title", "For Charles"], ["Recipient name", "Charles"], ["Recipient email", "charles@example.com"]]) {
    fireEvent.change(within(dialog).getByLabelText(label!), { target: { value } });
  }
  fireEvent.click(within(dialog).getByRole("switch", { name: "Seal with a passphrase" }));
  fireEvent.change(within(dialog).getByLabelText("Message"), { target: { value: letter } });
  fireEvent.change(within(dialog).getByLabelText("Passphrase"), { target: { value: passphrase } });
  fireEvent.change(within(dialog).getByLabelText("Passphrase again"), { target: { value: passphrase } });
  const files = within(dialog).getByRole("region", { name: "Files" });
  expect(within(files).getByText("Files are sealed with the passphrase; their names stay readable, like the title.")).toBeTruthy();
  pick(files, new File([secret], "deed.pdf"));
  expect(within(files).getByText("Uploads when the message is created")).toBeTruthy();
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));

  const edit = await screen.findByRole("dialog", { name: "Update Message" }, { timeout: 30_000 });
  const row = await within(edit).findByRole("listitem", {}, { timeout: 30_000 });
  await within(row).findByRole("button", { name: "Download deed.pdf" }, { timeout: 30_000 });
  expect(within(row).getByText("31 bytes")).toBeTruthy();
  const id = (api.find((c) => c.method === "POST" && c.path === "messages")!.body as { id: string }).id;
  const post = api.find((c) => c.method === "POST" && c.path === "messages/m1/files");
  expect(post!.body).toEqual({ name: "deed.pdf", size: sealedFileSize(secret.length) });
  const sent = new Blob(server.bytes.get("f1")!);
  expect((await text(sent)).startsWith("sealedfile:v1$argon2id$m=65536,t=3,p=1$")).toBe(true);
  expect(await text(sent)).not.toContain(secret);
  // Sealed for the message Create made (the mock answers m1).
  expect(await text(await openFile(new FileKeys(passphrase), "m1", sent))).toBe(secret);
  expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
}, 90_000);

test("a sealed message's file shows its opened size; downloading it without the letter open asks the passphrase", async () => {
  signInAs(pro);
  mockApi({
    "GET messages": () => ok([sealedMessage()]),
    "GET drafts/m1": () => ok(null),
    "GET messages/m1/files/f1/content": () => ({ status: 200, body: undefined }),
    ...filesServer([stored({})]).handlers,
  });
  // The content endpoint's bytes: the sealed file as stored.
  const mocked = globalThis.fetch;
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) =>
    String(input).endsWith("/files/f1/content") ? bytesReply(sealedDeed) : mocked(input, init));
  const saved = captureDownloads();
  renderRoute("/dashboard");
  const { files } = await openEdit();
  const row = await within(files).findByRole("listitem");
  expect(within(row).getByText("31 bytes")).toBeTruthy();
  expect(within(files).getByText(/Open the letter with its passphrase to attach files/)).toBeTruthy();
  expect(within(files).queryByRole("button", { name: "Attach files" })).toBeNull();

  fireEvent.click(within(row).getByRole("button", { name: "Download deed.pdf" }));
  const ask = within(files).getByRole("group", { name: "Passphrase to open deed.pdf" });
  fireEvent.change(within(ask).getByLabelText("Passphrase to open deed.pdf"), { target: { value: "violet harbor quietly mends six copper lanterns" } });
  fireEvent.click(within(ask).getByRole("button", { name: "Open and download" }));
  expect((await within(files).findByRole("alert", {}, { timeout: 30_000 })).textContent).toBe(
    "deed.pdf does not open with this passphrase: it was sealed with another, or it is damaged.",
  );
  expect(saved).toHaveLength(0);
  fireEvent.change(within(ask).getByLabelText("Passphrase to open deed.pdf"), { target: { value: passphrase } });
  fireEvent.click(within(ask).getByRole("button", { name: "Open and download" }));
  await waitFor(() => expect(saved).toHaveLength(1), { timeout: 30_000 });
  expect(await text(saved[0]!)).toBe(secret);
  expect(within(files).queryByRole("group", { name: "Passphrase to open deed.pdf" })).toBeNull();
  // Asked once: the next download opens with the same passphrase.
  fireEvent.click(within(row).getByRole("button", { name: "Download deed.pdf" }));
  await waitFor(() => expect(saved).toHaveLength(2), { timeout: 30_000 });
}, 90_000);

test("the letter opened, a file added goes sealed with its passphrase, and downloads opened", async () => {
  signInAs(pro);
  const server = filesServer();
  mockApi({ "GET messages": () => ok([sealedMessage()]), "GET drafts/m1": () => ok(null), ...server.handlers });
  const saved = captureDownloads();
  const mocked = globalThis.fetch;
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) =>
    String(input).endsWith("/files/f1/content") ? bytesReply(new Blob(server.bytes.get("f1")!)) : mocked(input, init));
  renderRoute("/dashboard");
  const { dialog, files } = await openEdit();
  fireEvent.change(within(dialog).getByLabelText("Passphrase of the sealed letter"), { target: { value: passphrase } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Open the letter" }));
  await within(dialog).findByLabelText("Message", {}, { timeout: 30_000 });
  pick(files, new File([secret], "deed.pdf"));
  const row = await within(files).findByRole("listitem");
  await within(row).findByRole("button", { name: "Download deed.pdf" }, { timeout: 30_000 });
  expect(await text(await openFile(new FileKeys(passphrase), "m1", new Blob(server.bytes.get("f1")!)))).toBe(secret);
  fireEvent.click(within(row).getByRole("button", { name: "Download deed.pdf" }));
  await waitFor(() => expect(saved).toHaveLength(1), { timeout: 30_000 });
  expect(await text(saved[0]!)).toBe(secret);
  expect(within(files).queryByRole("group")).toBeNull();
}, 90_000);

test("sealing a message whose files went unsealed says to remove them first, and sends nothing", async () => {
  signInAs(pro);
  const api = mockApi({
    "GET messages": () => ok([plainMessage]),
    "GET drafts/m1": () => ok(null),
    ...filesServer([stored({ clientSealed: false, size: 2000, offset: 2000 })]).handlers,
  });
  renderRoute("/dashboard");
  const { dialog, files } = await openEdit();
  await within(files).findByRole("listitem");
  fireEvent.click(within(dialog).getByRole("switch", { name: "Seal with a passphrase" }));
  fireEvent.change(within(dialog).getByLabelText("Passphrase"), { target: { value: passphrase } });
  fireEvent.change(within(dialog).getByLabelText("Passphrase again"), { target: { value: passphrase } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Update" }));
  expect((await within(dialog).findByRole("alert")).textContent).toMatch(/^Remove the files first: a message's files are sealed the way the message is, and these were sent unsealed\./);
  expect(api.filter((c) => c.method === "PATCH" && c.path === "messages/m1")).toHaveLength(0);
});

test("unsealing a message with sealed files, or changing its passphrase, says to remove them first", async () => {
  signInAs(pro);
  const api = mockApi({ "GET messages": () => ok([sealedMessage()]), "GET drafts/m1": () => ok(null), ...filesServer([stored({})]).handlers });
  renderRoute("/dashboard");
  const { dialog, files } = await openEdit();
  await within(files).findByRole("listitem");
  fireEvent.change(within(dialog).getByLabelText("Passphrase of the sealed letter"), { target: { value: passphrase } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Open the letter" }));
  await within(dialog).findByLabelText("Message", {}, { timeout: 30_000 });

  const other = "amber canyon slowly folds nine paper kites";
  fireEvent.change(within(dialog).getByLabelText("Passphrase"), { target: { value: other } });
  fireEvent.change(within(dialog).getByLabelText("Passphrase again"), { target: { value: other } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Update" }));
  expect((await within(dialog).findByRole("alert")).textContent).toMatch(/^Remove the files first, or keep the passphrase/);

  fireEvent.click(within(dialog).getByRole("switch", { name: "Seal with a passphrase" }));
  fireEvent.click(within(dialog).getByRole("button", { name: "Update" }));
  await waitFor(() => expect(within(dialog).getByRole("alert").textContent).toMatch(/and these are sealed with the passphrase\./));
  expect(api.filter((c) => c.method === "PATCH" && c.path === "messages/m1")).toHaveLength(0);
}, 90_000);

test("a file picked while a stored message is being sealed waits for the save, then goes sealed", async () => {
  signInAs(pro);
  const server = filesServer();
  const api = mockApi({
    "GET messages": () => ok([plainMessage]),
    "GET drafts/m1": () => ok(null),
    "PATCH messages/m1": () => ok(sealedMessage()),
    "DELETE drafts/m1": () => ok(null),
    ...server.handlers,
  });
  renderRoute("/dashboard");
  const { dialog, files } = await openEdit();
  fireEvent.click(within(dialog).getByRole("switch", { name: "Seal with a passphrase" }));
  fireEvent.change(within(dialog).getByLabelText("Passphrase"), { target: { value: passphrase } });
  fireEvent.change(within(dialog).getByLabelText("Passphrase again"), { target: { value: passphrase } });
  pick(files, new File([secret], "deed.pdf"));
  expect(await within(files).findByText("Uploads when the message is saved")).toBeTruthy();
  expect(api.filter((c) => c.path.startsWith("messages/m1/files") && c.method === "POST")).toHaveLength(0);
  fireEvent.click(within(dialog).getByRole("button", { name: "Update" }));
  const edit = await screen.findByRole("dialog", { name: "Update Message" });
  await within(edit).findByRole("button", { name: "Download deed.pdf" }, { timeout: 30_000 });
  const patch = api.findIndex((c) => c.method === "PATCH" && c.path === "messages/m1");
  const post = api.findIndex((c) => c.method === "POST" && c.path === "messages/m1/files");
  expect(patch).toBeGreaterThanOrEqual(0);
  expect(post).toBeGreaterThan(patch);
  expect(await text(await openFile(new FileKeys(passphrase), "m1", new Blob(server.bytes.get("f1")!)))).toBe(secret);
}, 90_000);

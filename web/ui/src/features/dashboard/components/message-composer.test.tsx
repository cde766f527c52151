import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { mockApi, ok, type ApiCall } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import type { Draft } from "../api/drafts";
import type { Message } from "../api/messages";
import { countWords } from "./message-dialog";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

const stored = (overrides: Partial<Message> = {}): Message => ({
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
  ...overrides,
});

const calls = (all: ApiCall[], method: string, path: string) => all.filter((c) => c.method === method && c.path === path);

async function openCreate() {
  const add = (await screen.findByRole("button", { name: "Add Message" })) as HTMLButtonElement;
  await waitFor(() => expect(add.disabled).toBe(false));
  fireEvent.click(add);
  return screen.getByRole("dialog", { name: "Create Message" });
}

const type = (dialog: HTMLElement, label: string, value: string) => fireEvent.change(within(dialog).getByLabelText(label), { target: { value } });

test("writing keeps the draft on this device at once and on the server after a rest; reopened, it is back", async () => {
  signInAs();
  const api = mockApi({ "GET messages": () => ok([]), "PUT drafts/new": (c) => ok({ key: "new", ...(c.body as object), updatedAt: 1 }) });
  renderRoute("/dashboard");
  let dialog = await openCreate();
  expect(within(dialog).getByText("0 words")).toBeTruthy();

  type(dialog, "Title", "For Dora");
  type(dialog, "Message", "Dear Dora,\n\nthe garden is yours.");
  expect(within(dialog).getByText("6 words")).toBeTruthy();
  expect(JSON.parse(localStorage.getItem("sendlater:draft:u1:new")!)).toMatchObject({
    title: "For Dora",
    message: "Dear Dora,\n\nthe garden is yours.",
    interval: "1M",
  });
  expect(calls(api, "PUT", "drafts/new")).toHaveLength(0);
  await waitFor(() => expect(calls(api, "PUT", "drafts/new")).toHaveLength(1));
  expect(calls(api, "PUT", "drafts/new")[0]!.body).toEqual({
    title: "For Dora",
    recipients: [{ name: "", recipient: "" }],
    message: "Dear Dora,\n\nthe garden is yours.",
    interval: "1M",
  });
  expect(await within(dialog).findByText("Draft saved")).toBeTruthy();

  // A closed tab: the page goes, the draft stays.
  cleanup();
  renderRoute("/dashboard");
  dialog = await openCreate();
  expect(within(dialog).getByText(/Your unsaved draft from .* is back\./)).toBeTruthy();
  expect((within(dialog).getByLabelText("Title") as HTMLInputElement).value).toBe("For Dora");
  expect((within(dialog).getByLabelText("Message") as HTMLTextAreaElement).value).toBe("Dear Dora,\n\nthe garden is yours.");
  expect(document.activeElement).toBe(within(dialog).getByLabelText("Message"));

  // Discard draft empties the form and forgets it, here and on the server.
  fireEvent.click(within(dialog).getByRole("button", { name: "Discard draft" }));
  expect((within(dialog).getByLabelText("Title") as HTMLInputElement).value).toBe("");
  expect(localStorage.getItem("sendlater:draft:u1:new")).toBeNull();
  await waitFor(() => expect(calls(api, "DELETE", "drafts/new")).toHaveLength(1));
});

test("a draft kept on the server (another device, a lost session) is offered back when this device has none", async () => {
  signInAs();
  const draft: Draft = {
    title: "From the phone",
    recipients: [{ name: "Dora", recipient: "dora@exa" }],
    message: "Half a letter",
    interval: "12M",
    updatedAt: Date.now() - 60_000,
  };
  mockApi({ "GET messages": () => ok([]), "GET drafts/new": () => ok({ key: "new", ...draft }) });
  renderRoute("/dashboard");
  const dialog = await openCreate();
  await waitFor(() => expect((within(dialog).getByLabelText("Message") as HTMLTextAreaElement).value).toBe("Half a letter"));
  expect((within(dialog).getByLabelText("Recipient email") as HTMLInputElement).value).toBe("dora@exa");
  expect((within(dialog).getByLabelText("Deliver after") as HTMLSelectElement).value).toBe("12M");
  expect(within(dialog).getByText(/Your unsaved draft from .* is back\./)).toBeTruthy();
});

test("drafts are per user: another account on this browser sees none of it", async () => {
  localStorage.setItem(
    "sendlater:draft:u2:new",
    JSON.stringify({ title: "Bob's", recipients: [], message: "Bob's letter", interval: "1M", updatedAt: Date.now() }),
  );
  signInAs();
  const api = mockApi({ "GET messages": () => ok([]), "GET drafts/new": () => ok(null) });
  renderRoute("/dashboard");
  const dialog = await openCreate();
  await waitFor(() => expect(calls(api, "GET", "drafts/new")).toHaveLength(1));
  expect((within(dialog).getByLabelText("Message") as HTMLTextAreaElement).value).toBe("");
  expect(within(dialog).queryByText(/Your unsaved draft/)).toBeNull();
});

test("Ctrl+S and Cmd+S save; a saved message keeps no draft", async () => {
  signInAs({ planId: "pro", planIsActive: true, messageLimit: null });
  const api = mockApi({
    "GET messages": () => ok([stored()]),
    "PATCH messages/m1": (c) => ok(stored(c.body as Partial<Message>)),
    "POST messages": (c) => ok(stored({ ...(c.body as Partial<Message>), id: "m2" }), 201),
  });
  renderRoute("/dashboard");
  fireEvent.click(await screen.findByRole("button", { name: "Edit" }));
  let dialog = screen.getByRole("dialog", { name: "Update Message" });
  type(dialog, "Message", "The key is under the blue pot.");
  expect(localStorage.getItem("sendlater:draft:u1:m1")).not.toBeNull();
  fireEvent.keyDown(within(dialog).getByLabelText("Message"), { key: "s", ctrlKey: true });
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(calls(api, "PATCH", "messages/m1")[0]!.body).toMatchObject({ message: "The key is under the blue pot." });
  expect(localStorage.getItem("sendlater:draft:u1:m1")).toBeNull();
  await waitFor(() => expect(calls(api, "DELETE", "drafts/m1")).toHaveLength(1));

  dialog = await openCreate();
  type(dialog, "Title", "For Dora");
  type(dialog, "Recipient name", "Dora");
  type(dialog, "Recipient email", "dora@example.com");
  type(dialog, "Message", "Hello");
  fireEvent.keyDown(within(dialog).getByLabelText("Title"), { key: "S", metaKey: true });
  await waitFor(() => expect(calls(api, "POST", "messages")).toHaveLength(1));
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(localStorage.getItem("sendlater:draft:u1:new")).toBeNull();
});

test("Escape asks before leaving a changed draft, and keeps it; an unchanged one closes at once", async () => {
  signInAs();
  const api = mockApi({ "GET messages": () => ok([]), "PUT drafts/new": (c) => ok({ key: "new", ...(c.body as object), updatedAt: 1 }) });
  renderRoute("/dashboard");
  let dialog = await openCreate();
  type(dialog, "Message", "Something to keep");
  fireEvent.keyDown(document, { key: "Escape" });
  const question = within(dialog).getByRole("group", { name: /Leave this message\? Your draft is kept/ });
  expect(document.activeElement).toBe(within(question).getByRole("button", { name: "Keep writing" }));
  fireEvent.click(within(question).getByRole("button", { name: "Keep writing" }));
  expect(screen.getByRole("dialog", { name: "Create Message" })).toBeTruthy();
  expect(within(dialog).getByRole("button", { name: "Create" })).toBeTruthy();

  fireEvent.keyDown(document, { key: "Escape" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Leave" }));
  expect(screen.queryByRole("dialog")).toBeNull();
  // Kept here at once, and written to the server without waiting for the rest.
  expect(JSON.parse(localStorage.getItem("sendlater:draft:u1:new")!).message).toBe("Something to keep");
  await waitFor(() => expect(calls(api, "PUT", "drafts/new")).toHaveLength(1));

  dialog = await openCreate();
  expect((within(dialog).getByLabelText("Message") as HTMLTextAreaElement).value).toBe("Something to keep");
  fireEvent.click(within(dialog).getByRole("button", { name: "Discard draft" }));
  await act(async () => {
    fireEvent.keyDown(document, { key: "Escape" });
  });
  expect(screen.queryByRole("dialog")).toBeNull();
});

test("words are counted as a word processor counts them", () => {
  expect(countWords("")).toBe(0);
  expect(countWords("  \n ")).toBe(0);
  expect(countWords("Dear Dora,\n\nthe garden\tis yours.")).toBe(6);
});

import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { plansHandler } from "../../../testing/plans";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import type { Message } from "../api/messages";

afterEach(() => {
  endSession();
  user.value = undefined;
});

const created = (body: Partial<Message>): Message => ({
  id: "m1",
  owner: "u1",
  title: "",
  name: "",
  recipient: "",
  message: "",
  interval: "1M",
  sendDate: Date.UTC(2027, 0, 15),
  isActive: true,
  featured: false,
  createdAt: Date.UTC(2026, 11, 15),
  status: "scheduled",
  ...body,
});

/** Opens the dialog once the list has loaded and Add Message works. */
async function openCreate() {
  const add = (await screen.findByRole("button", { name: "Add Message" }, { timeout: 5000 })) as HTMLButtonElement;
  await waitFor(() => expect(add.disabled).toBe(false));
  fireEvent.click(add);
  return screen.getByRole("dialog", { name: "Create Message" });
}

const fill = (dialog: HTMLElement, label: string, value: string) =>
  fireEvent.change(within(dialog).getByLabelText(label), { target: { value } });

test("on Pro the dialog adds and removes recipient rows, each checked like the first", async () => {
  signInAs({ planId: "pro", planIsActive: true, messageLimit: null, recipientLimit: 10 });
  const calls = mockApi({
    "GET messages": () => ok([]),
    ...plansHandler(),
    "POST messages": (call) => ok(created(call.body as Partial<Message>)),
  });
  renderRoute("/dashboard");

  const dialog = await openCreate();
  fireEvent.click(within(dialog).getByRole("button", { name: "Add recipient" }));
  fireEvent.click(within(dialog).getByRole("button", { name: "Add recipient" }));
  fireEvent.click(within(dialog).getByRole("button", { name: "Add recipient" }));
  fill(dialog, "Title", "For all");
  fill(dialog, "Message", "Hello");
  fill(dialog, "Recipient name", "Ann");
  fill(dialog, "Recipient email", "ann@example.com");
  fill(dialog, "Recipient 2 name", "Ben");
  fill(dialog, "Recipient 3 email", "cleo@example.com");
  fill(dialog, "Recipient 4 name", "Dan");
  fill(dialog, "Recipient 4 email", "dan@example.com");
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  // The empty fields of the rows, with SPEC.md's messages, and nothing sent.
  expect(within(dialog).getByText("Please enter a recipient email address")).toBeTruthy();
  expect(within(dialog).getByText("Please enter a recipient name")).toBeTruthy();
  expect(calls.some((call) => call.method === "POST")).toBe(false);

  // Removing row 2 moves the rows after it up.
  fireEvent.click(within(dialog).getByRole("button", { name: "Remove recipient 2" }));
  expect((within(dialog).getByLabelText("Recipient 2 email") as HTMLInputElement).value).toBe("cleo@example.com");
  fill(dialog, "Recipient 2 name", "Cleo");
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  expect(await screen.findByRole("cell", { name: "For all" })).toBeTruthy();
  expect(calls.find((call) => call.method === "POST")?.body).toEqual({
    title: "For all",
    name: "Ann",
    recipient: "ann@example.com",
    message: "Hello",
    interval: "1M",
    recipients: [
      { name: "Ann", recipient: "ann@example.com" },
      { name: "Cleo", recipient: "cleo@example.com" },
      { name: "Dan", recipient: "dan@example.com" },
    ],
  });
}, 15000);

test("the server's message of a row shows under that row", async () => {
  signInAs({ planId: "pro", planIsActive: true, messageLimit: null, recipientLimit: 10 });
  mockApi({
    "GET messages": () => ok([]),
    ...plansHandler(),
    "POST messages": () =>
      fail(422, "request/validation", "Please check the highlighted fields.", {
        "recipients[1].recipient": "This address is already a recipient of this message",
      }),
  });
  renderRoute("/dashboard");

  const dialog = await openCreate();
  fireEvent.click(within(dialog).getByRole("button", { name: "Add recipient" }));
  for (const [label, value] of [
    ["Title", "T"],
    ["Message", "Hi"],
    ["Recipient name", "Ann"],
    ["Recipient email", "ann@example.com"],
    ["Recipient 2 name", "Ann again"],
    ["Recipient 2 email", "ANN@example.com"],
  ] as const) {
    fill(dialog, label, value);
  }
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  const help = await within(dialog).findByText("This address is already a recipient of this message");
  expect(within(dialog).getByLabelText("Recipient 2 email").getAttribute("aria-describedby")).toBe(help.id);
}, 15000);

test("the free plan keeps one recipient and says how to have more", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard");

  const dialog = await openCreate();
  expect(within(dialog).queryByRole("button", { name: "Add recipient" })).toBeNull();
  expect(within(dialog).getByText("Upgrade your plan to send a message to up to 10 people.")).toBeTruthy();
}, 15000);

test("History opens the message's timeline from its row: one Sent per recipient", async () => {
  signInAs({ planId: "pro", planIsActive: true, messageLimit: null, recipientLimit: 10 });
  const delivered = created({
    title: "For all",
    name: "Ann",
    recipient: "ann@example.com",
    status: "delivered",
    recipients: [
      { name: "Ann", recipient: "ann@example.com", status: "sent", sentAt: Date.UTC(2027, 0, 15) },
      { name: "Ben", recipient: "ben@example.com", status: "sent", sentAt: Date.UTC(2027, 0, 15) },
    ],
  });
  mockApi({
    "GET messages": () => ok([delivered]),
    ...plansHandler(),
    "GET messages/m1/events": () =>
      ok([
        { at: Date.UTC(2026, 11, 15), kind: "created", actor: "author (web app)" },
        { at: Date.UTC(2027, 0, 15), kind: "retrying", recipient: "ben@example.com", detail: "451 busy", nextAttemptAt: Date.UTC(2027, 0, 15, 0, 1) },
        { at: Date.UTC(2027, 0, 15), kind: "sent", recipient: "ann@example.com" },
        { at: Date.UTC(2027, 0, 15, 0, 1), kind: "sent", recipient: "ben@example.com" },
        { at: Date.UTC(2027, 0, 16), kind: "downloaded", actor: "recipient (file link)", recipient: "ann@example.com", detail: "will.pdf" },
      ]),
  });
  renderRoute("/dashboard");

  const row = (await screen.findByRole("cell", { name: "For all" }, { timeout: 5000 })).closest("tr")!;
  expect(within(row).getByText("and 1 more")).toBeTruthy();
  fireEvent.click(within(row).getByRole("button", { name: "History: For all" }));
  const dialog = screen.getByRole("dialog", { name: "History of For all" });
  expect(await within(dialog).findAllByText("Sent")).toHaveLength(2);
  expect(within(dialog).getByText(/to ben@example.com, 451 busy, next attempt/)).toBeTruthy();
  expect(within(dialog).getByText(/by author \(web app\)/)).toBeTruthy();
  expect(within(dialog).getByText("File downloaded")).toBeTruthy();
  expect(within(dialog).getByText(/will\.pdf by ann@example\.com/)).toBeTruthy();
  fireEvent.click(within(dialog).getAllByRole("button", { name: "Close" })[0]!);
  expect(screen.queryByRole("dialog")).toBeNull();
}, 15000);

test("Preview shows each recipient's email as the server renders it; Send a test to me asks the server", async () => {
  signInAs({ planId: "pro", planIsActive: true, messageLimit: null, recipientLimit: 10 });
  const stored = created({ title: "For Ann", name: "Ann", recipient: "ann@example.com", message: "Hello" });
  const calls = mockApi({
    "GET messages": () => ok([stored]),
    ...plansHandler(),
    "POST messages/m1/preview": () =>
      ok([{ to: { name: "Ann", address: "ann@example.com" }, subject: "A message from Ada", text: "Dear Ann,\n\nHello", html: "" }]),
    "POST messages/m1/test": () => ok({ sent: 1 }),
  });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Edit" }, { timeout: 5000 }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
  const preview = await within(dialog).findByRole("region", { name: "Preview" });
  expect(within(preview).getByText("A message from Ada")).toBeTruthy();
  expect(within(preview).getByText(/Dear Ann,/)).toBeTruthy();
  // A stored message's preview goes to its own route: the email says the day it was written.
  expect(calls.find((c) => c.path === "messages/m1/preview")?.body).toMatchObject({ message: "Hello", recipients: [{ name: "Ann", recipient: "ann@example.com" }] });

  fireEvent.click(within(dialog).getByRole("button", { name: "Send a test to me" }));
  expect(await screen.findByText("A test is on its way to you.")).toBeTruthy();
  expect(calls.some((c) => c.method === "POST" && c.path === "messages/m1/test")).toBe(true);
}, 15000);

test("Send a test to me is disabled, saying why, until the address is confirmed; the server's refusals show in the dialog", async () => {
  signInAs({ emailVerified: false });
  const stored = created({ title: "For Ann", name: "Ann", recipient: "ann@example.com", message: "Hello" });
  const calls = mockApi({
    "GET messages": () => ok([stored]),
    ...plansHandler(),
    "POST messages/m1/test": () =>
      fail(403, "auth/email-not-verified", "Please confirm your email address first: follow the link we sent to ada@example.com, then send a test."),
  });
  const { unmount } = renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Edit" }, { timeout: 5000 }));
  let dialog = screen.getByRole("dialog", { name: "Update Message" });
  const button = within(dialog).getByRole("button", { name: "Send a test to me" }) as HTMLButtonElement;
  expect(button.disabled).toBe(true);
  expect(button.getAttribute("aria-describedby")).toBe("send-test-reason");
  expect(within(dialog).getByText("Confirm your email address first: follow the link we sent you.").id).toBe("send-test-reason");
  fireEvent.click(button);
  expect(calls.some((c) => c.path === "messages/m1/test")).toBe(false);
  unmount();

  // Confirmed, the button works; a refusal of the server (here a limit) shows in the dialog.
  signInAs({ emailVerified: true });
  mockApi({
    "GET messages": () => ok([stored]),
    ...plansHandler(),
    "POST messages/m1/test": () =>
      fail(429, "auth/too-many-requests", "Test emails are limited to 5 an hour and 20 a day, for each account and each address: please try again in 40 minutes."),
  });
  renderRoute("/dashboard");
  fireEvent.click(await screen.findByRole("button", { name: "Edit" }, { timeout: 5000 }));
  dialog = screen.getByRole("dialog", { name: "Update Message" });
  expect(within(dialog).queryByText("Confirm your email address first: follow the link we sent you.")).toBeNull();
  fireEvent.click(within(dialog).getByRole("button", { name: "Send a test to me" }));
  expect(await within(dialog).findByText(/Test emails are limited to 5 an hour/)).toBeTruthy();
}, 15000);

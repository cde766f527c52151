import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, idToken, user } from "../../../lib/auth";
import { lapsedPlanRule } from "../../../lib/plans";
import { toasts } from "../../../lib/toasts";
import { fail, mockApi, ok, type ApiCall } from "../../../testing/api-mock";
import { FakeEventSource, stubEventSource } from "../../../testing/event-source";
import { plansHandler } from "../../../testing/plans";
import { renderRoute } from "../../../testing/render-route";
import { signInAs, testUser } from "../../../testing/session";
import type { Message } from "../api/messages";
import { addMonths, formatDate } from "./dates";

afterEach(() => {
  endSession();
  user.value = undefined;
  toasts.value = [];
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const sendDate = Date.UTC(2027, 0, 15, 9, 0);

const stored = (overrides: Partial<Message> = {}): Message => ({
  id: "m1",
  owner: "u1",
  title: "For Charles",
  name: "Charles",
  recipient: "charles@example.com",
  message: "The key is under the mat.",
  interval: "6M",
  sendDate,
  isActive: true,
  featured: false,
  createdAt: Date.UTC(2026, 6, 15),
  status: "scheduled",
  ...overrides,
});

const body = (calls: ApiCall[], method: string, path: string) =>
  calls.find((call) => call.method === method && call.path === path)?.body;

test("an empty list on the free plan: one message left, Add Message enabled", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard");

  expect(await screen.findByText("Remaining messages: 1")).toBeTruthy();
  expect((screen.getByRole("button", { name: "Add Message" }) as HTMLButtonElement).disabled).toBe(false);
  await waitFor(() => expect(document.title).toBe("Dashboard - Sendlater"));
});

test("one message on the free plan: Add Message disabled, with Upgrade your plan", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([stored()]) });
  renderRoute("/dashboard");

  const row = (await screen.findByRole("cell", { name: "For Charles" })).closest("tr")!;
  expect(within(row).getByText("Charles")).toBeTruthy();
  expect(within(row).getByText("charles@example.com")).toBeTruthy();
  expect(within(row).getByText(formatDate(sendDate))).toBeTruthy();
  // The status in its word and its tone, never in colour alone (web/ui/DESIGN.md).
  expect(within(row).getByText("Scheduled").className).toBe("status tone-info");
  const add = screen.getByRole("button", { name: "Add Message" }) as HTMLButtonElement;
  expect(add.disabled).toBe(true);
  expect(add.parentElement?.getAttribute("data-tooltip")).toBe("Upgrade your plan");
  expect(screen.getByText("Remaining messages: 0")).toBeTruthy();
});

test.each(["pro", "business"] as const)("an active %s plan may add more messages", async (planId) => {
  // The server says what the plan allows: no limit.
  signInAs({ planId, planIsActive: true, messageLimit: null });
  mockApi({ "GET messages": () => ok([stored(), stored({ id: "m2", title: "For Dora" })]) });
  renderRoute("/dashboard");

  await screen.findByRole("cell", { name: "For Dora" });
  expect((screen.getByRole("button", { name: "Add Message" }) as HTMLButtonElement).disabled).toBe(false);
  expect(screen.queryByText(/Remaining messages/)).toBeNull();
});

test("an inactive pro plan keeps the free limit", async () => {
  signInAs({ planId: "pro", planIsActive: false });
  mockApi({ "GET messages": () => ok([stored()]) });
  renderRoute("/dashboard");

  await screen.findByRole("cell", { name: "For Charles" });
  expect((screen.getByRole("button", { name: "Add Message" }) as HTMLButtonElement).disabled).toBe(true);
});

test("back from checkout with an active plan, a banner names it", async () => {
  signInAs({ planId: "pro", planIsActive: true, messageLimit: null });
  mockApi({ "GET messages": () => ok([]), ...plansHandler() });
  renderRoute("/dashboard?paid=true");

  expect(await screen.findByText("You are now subscribed to the Pro plan")).toBeTruthy();
});

test("no banner while the plan is not active yet", async () => {
  signInAs({ planId: "pro", planIsActive: false });
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard?paid=true");

  await screen.findByText("Remaining messages: 1");
  expect(screen.queryByText(/You are now subscribed/)).toBeNull();
});

test("without a name, the dashboard points to the settings", async () => {
  signInAs({ name: "" });
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard");

  const link = await screen.findByRole("link", { name: "add your name in the settings" });
  expect(link.getAttribute("href")).toBe("/settings/general");
});

test("with a name, no nudge", async () => {
  signInAs({ name: "Ada" });
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard");

  await screen.findByText("Remaining messages: 1");
  expect(screen.queryByRole("link", { name: "add your name in the settings" })).toBeNull();
});

test("creating a message: required fields, the computed date, then the new row", async () => {
  signInAs();
  const calls = mockApi({
    "GET messages": () => ok([]),
    "POST messages": (call) => ok(stored({ ...(call.body as Partial<Message>), id: "m9" }), 201),
  });
  renderRoute("/dashboard");

  await screen.findByText("Remaining messages: 1");
  fireEvent.click(screen.getByRole("button", { name: "Add Message" }));
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  expect((within(dialog).getByLabelText("Deliver after") as HTMLSelectElement).value).toBe("1M");
  expect(within(dialog).getByLabelText("Recipient email").getAttribute("type")).toBe("email");
  expect(Number(within(dialog).getByLabelText("Message").getAttribute("rows"))).toBeGreaterThanOrEqual(4);
  expect(within(dialog).getByText(`The message will be delivered on ${formatDate(addMonths(Date.now(), 1))}.`)).toBeTruthy();

  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  for (const text of [
    "Please enter a title",
    "Please enter a recipient name",
    "Please enter a recipient email address",
    "Please enter a message",
  ]) {
    expect(within(dialog).getByText(text)).toBeTruthy();
  }

  fireEvent.change(within(dialog).getByLabelText("Title"), { target: { value: "For Dora" } });
  fireEvent.change(within(dialog).getByLabelText("Recipient name"), { target: { value: "Dora" } });
  fireEvent.change(within(dialog).getByLabelText("Recipient email"), { target: { value: "dora@example.com" } });
  fireEvent.change(within(dialog).getByLabelText("Message"), { target: { value: "Hello" } });
  fireEvent.change(within(dialog).getByLabelText("Deliver after"), { target: { value: "12M" } });
  expect(within(dialog).getByText(`The message will be delivered on ${formatDate(addMonths(Date.now(), 12))}.`)).toBeTruthy();
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));

  expect(await screen.findByRole("cell", { name: "For Dora" })).toBeTruthy();
  expect(screen.queryByRole("dialog")).toBeNull();
  // A retry of this create (a lost reply) would make no second message.
  expect(calls.find((call) => call.method === "POST" && call.path === "messages")?.headers["Idempotency-Key"]).toMatch(
    /^[0-9a-f]{32}$/,
  );
  expect(body(calls, "POST", "messages")).toEqual({
    title: "For Dora",
    name: "Dora",
    recipient: "dora@example.com",
    message: "Hello",
    interval: "12M",
  });
});

test("the server's field messages show under the fields; other errors in the alert", async () => {
  signInAs();
  let reply = fail(422, "request/validation", "Some fields are invalid.", {
    recipient: "Please enter a valid email address",
  });
  mockApi({ "GET messages": () => ok([]), "POST messages": () => reply });
  renderRoute("/dashboard");

  await screen.findByText("Remaining messages: 1");
  fireEvent.click(screen.getByRole("button", { name: "Add Message" }));
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  for (const [label, value] of [
    ["Title", "T"],
    ["Recipient name", "Dora"],
    ["Recipient email", "dora@"],
    ["Message", "Hi"],
  ]) {
    fireEvent.change(within(dialog).getByLabelText(label!), { target: { value } });
  }
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  expect(await within(dialog).findByText("Please enter a valid email address")).toBeTruthy();
  expect(within(dialog).queryByRole("alert")).toBeNull();

  reply = fail(403, "plan/limit-reached", "Upgrade your plan to add more messages.");
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));
  expect((await within(dialog).findByRole("alert")).textContent).toBe("Upgrade your plan to add more messages.");
});

test("editing keeps the delivery date until a new interval is picked, and sends the interval only then", async () => {
  signInAs();
  const calls = mockApi({
    "GET messages": () => ok([stored()]),
    "PATCH messages/m1": (call) => ok(stored(call.body as Partial<Message>)),
  });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Edit" }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  expect((within(dialog).getByLabelText("Title") as HTMLInputElement).value).toBe("For Charles");
  expect((within(dialog).getByLabelText("Deliver after") as HTMLSelectElement).value).toBe("6M");
  expect(within(dialog).getByText(`The message will be delivered on ${formatDate(sendDate)}.`)).toBeTruthy();

  fireEvent.change(within(dialog).getByLabelText("Title"), { target: { value: "For Charles, later" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Update" }));
  expect(await screen.findByRole("cell", { name: "For Charles, later" })).toBeTruthy();
  expect(body(calls, "PATCH", "messages/m1")).toEqual({
    title: "For Charles, later",
    name: "Charles",
    recipient: "charles@example.com",
    message: "The key is under the mat.",
  });

  fireEvent.click(screen.getByRole("button", { name: "Edit" }));
  const again = screen.getByRole("dialog", { name: "Update Message" });
  fireEvent.change(within(again).getByLabelText("Deliver after"), { target: { value: "1M" } });
  expect(within(again).getByText(`The message will be delivered on ${formatDate(addMonths(Date.now(), 1))}.`)).toBeTruthy();
  fireEvent.click(within(again).getByRole("button", { name: "Update" }));
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(calls.filter((call) => call.method === "PATCH").at(-1)?.body).toMatchObject({ interval: "1M" });
});

test("Delete is offered when editing and closes the dialog", async () => {
  signInAs();
  const calls = mockApi({ "GET messages": () => ok([stored()]), "DELETE messages/m1": () => ok(null) });
  renderRoute("/dashboard");

  await screen.findByRole("cell", { name: "For Charles" });
  fireEvent.click(screen.getByRole("button", { name: "Edit" }));
  fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Delete" }));
  // Delete asks first.
  fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Delete message" }));

  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(screen.queryByRole("cell", { name: "For Charles" })).toBeNull();
  expect(screen.getByText("Remaining messages: 1")).toBeTruthy();
  expect(calls.some((call) => call.method === "DELETE" && call.path === "messages/m1")).toBe(true);
});

test("creating offers no Delete", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard");

  await screen.findByText("Remaining messages: 1");
  fireEvent.click(screen.getByRole("button", { name: "Add Message" }));
  expect(within(screen.getByRole("dialog")).queryByRole("button", { name: "Delete" })).toBeNull();
});

test("the toggle switches isActive, with On and Off tooltips", async () => {
  signInAs();
  const calls = mockApi({
    "GET messages": () => ok([stored()]),
    "PATCH messages/m1": (call) => ok(stored(call.body as Partial<Message>)),
  });
  renderRoute("/dashboard");

  const toggle = (await screen.findByRole("switch")) as HTMLInputElement;
  expect(toggle.checked).toBe(true);
  expect(toggle.parentElement?.getAttribute("data-tooltip")).toBe("On");
  fireEvent.click(toggle);

  await waitFor(() => expect((screen.getByRole("switch") as HTMLInputElement).checked).toBe(false));
  expect(screen.getByRole("switch").parentElement?.getAttribute("data-tooltip")).toBe("Off");
  expect(body(calls, "PATCH", "messages/m1")).toEqual({ isActive: false });
});

test("postpone shows the toast with the new date for 6 seconds", async () => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  signInAs();
  const later = Date.UTC(2027, 6, 15, 9, 0);
  const calls = mockApi({
    "GET messages": () => ok([stored()]),
    "POST messages/m1/postpone": () => ok(stored({ sendDate: later })),
  });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Postpone" }));
  const toast = `The message is postponed! It will be delivered on ${formatDate(later)}.`;
  expect(await screen.findByText(toast)).toBeTruthy();
  expect(screen.getByText(formatDate(later))).toBeTruthy();
  expect(calls.some((call) => call.method === "POST" && call.path === "messages/m1/postpone")).toBe(true);

  act(() => vi.advanceTimersByTime(5900));
  expect(screen.queryByText(toast)).toBeTruthy();
  act(() => vi.advanceTimersByTime(200));
  expect(screen.queryByText(toast)).toBeNull();
});

test("the list is live from the stream, reopened with each new token", async () => {
  stubEventSource();
  signInAs({}, "token-1");
  const calls = mockApi({});
  renderRoute("/dashboard");

  await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
  const first = FakeEventSource.opened[0]!;
  expect(first.url).toBe("/api/messages/stream?token=token-1");
  act(() => first.send("messages", [stored()]));
  expect(await screen.findByRole("cell", { name: "For Charles" })).toBeTruthy();
  act(() => first.send("messages", [stored({ id: "m2", title: "From elsewhere" }), stored()]));
  expect(await screen.findByRole("cell", { name: "From elsewhere" })).toBeTruthy();

  act(() => {
    idToken.value = "token-2";
  });
  await waitFor(() => expect(FakeEventSource.opened).toHaveLength(2));
  expect(first.readyState).toBe(FakeEventSource.CLOSED);
  expect(FakeEventSource.opened[1]!.url).toBe("/api/messages/stream?token=token-2");
  expect(calls.filter((call) => call.path === "messages")).toEqual([]);
});

// Back from checkout before Stripe's webhook: the page waits, and the stream's session user
// brings the paid plan, its banner and Add Message for a second message, without a reload.
test("a plan that starts while the dashboard is open shows at once", async () => {
  stubEventSource();
  signInAs({ planId: "starter", canAddMessage: false });
  mockApi(plansHandler());
  renderRoute("/dashboard?paid=true");

  await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
  const stream = FakeEventSource.opened[0]!;
  act(() => stream.send("messages", [stored()]));
  expect(await screen.findByText(/Stripe is confirming your payment/)).toBeTruthy();
  const add = () => screen.getByRole("button", { name: "Add Message" }) as HTMLButtonElement;
  expect(add().disabled).toBe(true);

  act(() => {
    stream.send("me", testUser({ planId: "pro", planIsActive: true, stripeSubscriptionStatus: "active", messageLimit: null }));
    stream.send("messages", [stored()]);
  });
  expect(await screen.findByText("You are now subscribed to the Pro plan")).toBeTruthy();
  expect(add().disabled).toBe(false);
  expect(screen.queryByText(/Stripe is confirming/)).toBeNull();
  expect(screen.queryByText(/Remaining messages/)).toBeNull();
  expect(user.value?.planId).toBe("pro");
});

test("a lapsed plan says what it keeps, in one sentence", async () => {
  signInAs({ planId: "pro", planIsActive: false, stripeSubscriptionStatus: "past_due" });
  mockApi({ "GET messages": () => ok([stored(), stored({ id: "m2", title: "For Dora" })]), ...plansHandler() });
  renderRoute("/dashboard");

  await screen.findByRole("cell", { name: "For Dora" });
  const notice = screen.getByText(/Your Pro plan is not active \(past due\)/);
  expect(notice.textContent).toContain(lapsedPlanRule);
  expect((screen.getByRole("button", { name: "Add Message" }) as HTMLButtonElement).disabled).toBe(true);
  // Still editable and postponable.
  expect(screen.getAllByRole("button", { name: "Edit" }).every((b) => !(b as HTMLButtonElement).disabled)).toBe(true);
  expect(screen.getAllByRole("button", { name: "Postpone" }).every((b) => !(b as HTMLButtonElement).disabled)).toBe(true);
});

test("when the stream ends, the list is read once instead", async () => {
  stubEventSource();
  signInAs();
  mockApi({ "GET messages": () => ok([stored({ title: "Read by hand" })]) });
  renderRoute("/dashboard");

  await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
  act(() => FakeEventSource.opened[0]!.send("error", { status: "error", code: "internal/error", message: "Internal error." }));

  expect(await screen.findByRole("cell", { name: "Read by hand" })).toBeTruthy();
});

// The server ends a stream with service/unavailable only after the database was away for a
// minute (docs/api.md): the page opens it again 5 seconds later, and keeps following.
test("a stream ended by an unavailable database is opened again", async () => {
  stubEventSource();
  vi.useFakeTimers({ shouldAdvanceTime: true });
  try {
    signInAs();
    const down = "The database cannot be reached at the moment. Please try again shortly.";
    mockApi({ "GET messages": () => fail(503, "service/unavailable", down) });
    renderRoute("/dashboard");

    await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
    act(() => FakeEventSource.opened[0]!.send("error", { status: "error", code: "service/unavailable", message: down }));
    expect(FakeEventSource.opened[0]!.readyState).toBe(FakeEventSource.CLOSED);
    act(() => void vi.advanceTimersByTime(5000));
    expect(FakeEventSource.opened).toHaveLength(2);
    act(() => FakeEventSource.opened[1]!.send("messages", [stored({ title: "Back again" })]));
    expect(await screen.findByRole("cell", { name: "Back again" })).toBeTruthy();
  } finally {
    vi.useRealTimers();
  }
});

test("delete asks for confirmation, and Keep it leaves the message alone", async () => {
  signInAs();
  const calls = mockApi({ "GET messages": () => ok([stored()]) });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Edit" }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  fireEvent.click(within(dialog).getByRole("button", { name: "Delete" }));

  expect(within(dialog).getByText("Delete this message? It will not be delivered, and this cannot be undone.")).toBeTruthy();
  expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Keep it" }));
  fireEvent.click(within(dialog).getByRole("button", { name: "Keep it" }));

  expect(within(dialog).queryByRole("button", { name: "Delete message" })).toBeNull();
  expect(within(dialog).getByRole("button", { name: "Update" })).toBeTruthy();
  expect(calls.some((call) => call.method === "DELETE")).toBe(false);
});

test.each([
  ["paused", "Paused: switch it on to postpone"],
  ["sending", "Being delivered now"],
  ["delivered", "Already delivered"],
] as const)("Postpone is disabled on a %s message and says why", async (status, reason) => {
  signInAs();
  const calls = mockApi({ "GET messages": () => ok([stored({ status, isActive: status !== "paused" })]) });
  renderRoute("/dashboard");

  const postpone = (await screen.findByRole("button", { name: "Postpone" })) as HTMLButtonElement;
  expect(postpone.disabled).toBe(true);
  expect(postpone.parentElement?.getAttribute("data-tooltip")).toBe(reason);
  expect(document.getElementById(postpone.getAttribute("aria-describedby")!)?.textContent).toBe(reason);
  fireEvent.click(postpone);
  expect(calls.some((call) => call.path.endsWith("/postpone"))).toBe(false);
});

test("Postpone is disabled with its reason while a postpone would not move the date, and comes back after", async () => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  signInAs();
  const until = Date.now() + 60_000;
  const calls = mockApi({ "GET messages": () => ok([stored({ postponeBlockedUntil: until })]) });
  renderRoute("/dashboard");

  const reason = `Postponing today would not move the date: it is already ${formatDate(sendDate)}.`;
  const postpone = (await screen.findByRole("button", { name: "Postpone" })) as HTMLButtonElement;
  expect(postpone.disabled).toBe(true);
  expect(postpone.parentElement?.getAttribute("data-tooltip")).toBe(reason);
  expect(document.getElementById(postpone.getAttribute("aria-describedby")!)?.textContent).toBe(reason);
  fireEvent.click(postpone);
  expect(calls.some((call) => call.path.endsWith("/postpone"))).toBe(false);

  // The author's next day: the same reply now lets it work.
  act(() => vi.advanceTimersByTime(61_000));
  await waitFor(() => expect((screen.getByRole("button", { name: "Postpone" }) as HTMLButtonElement).disabled).toBe(false));
});

test("a postpone the server left as it was says why, never that it postponed", async () => {
  signInAs();
  mockApi({
    "GET messages": () => ok([stored()]),
    "POST messages/m1/postpone": () => ok(stored()),
  });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Postpone" }));

  expect(await screen.findByText(`Postponing today would not move the date: it is already ${formatDate(sendDate)}.`)).toBeTruthy();
  expect(screen.queryByText(/The message is postponed!/)).toBeNull();
});

test("the message dialog is modal: the page behind is inert, Escape closes it and focus returns to Add Message", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([]) });
  renderRoute("/dashboard");

  // The button is disabled until the list has loaded.
  await screen.findByText("Remaining messages: 1");
  const add = screen.getByRole("button", { name: "Add Message" });
  add.focus();
  fireEvent.click(add);
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  expect(document.activeElement).toBe(within(dialog).getByLabelText("Title"));
  expect(add.closest("[inert]")).not.toBeNull();

  const create = within(dialog).getByRole("button", { name: "Create" });
  create.focus();
  fireEvent.keyDown(document, { key: "Tab" });
  expect(dialog.contains(document.activeElement)).toBe(true);

  fireEvent.keyDown(document, { key: "Escape" });
  expect(screen.queryByRole("dialog")).toBeNull();
  expect(document.activeElement).toBe(add);
});

test("a failed message shows why, with a banner, whatever became of the email that told the author", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  mockApi({
    "GET messages": () =>
      ok([stored({ status: "failed", failureReason: "The recipient's mail server refused the message: 550 no such user" }), stored({ id: "m2", title: "For Dora" })]),
  });
  renderRoute("/dashboard");

  const row = (await screen.findByRole("cell", { name: "For Charles" })).closest("tr")!;
  expect(within(row).getByText("Failed")).toBeTruthy();
  expect(within(row).getByText(/550 no such user/)).toBeTruthy();
  expect(screen.getByText(/One message could not be delivered/)).toBeTruthy();
});

test("Load more shows the next page, then no button once all are shown", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  const page = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => stored({ id: `m${from + i}`, title: `Letter ${from + i}` }));
  mockApi({
    "GET messages": () => ({ status: 200, body: { status: "success", data: page(0, 50), nextCursor: "c50" } }),
    "GET messages?limit=100": () => ok(page(0, 70)),
  });
  renderRoute("/dashboard");

  // Role queries over 70 rows take seconds in jsdom on a loaded machine: the rows are found by
  // their text, and given longer than the 1 s default.
  const slow = { timeout: 10_000 };
  await screen.findByText("Letter 49", {}, slow);
  expect(screen.queryByText("Letter 50")).toBeNull();
  fireEvent.click(screen.getByRole("button", { name: "Load more" }));
  expect(await screen.findByText("Letter 69", {}, slow)).toBeTruthy();
  await waitFor(() => expect(screen.queryByRole("button", { name: "Load more" })).toBeNull(), slow);
}, 30_000);

test("an unconfirmed address is told its email is on its way, and may ask again", async () => {
  signInAs({ emailVerified: false });
  const calls = mockApi({
    "GET messages": () => ok([]),
    "POST me/verify-email": () => ok(null),
  });
  renderRoute("/dashboard");

  expect(await screen.findByText(/We sent a confirmation email to ada@example.com: it is on its way/)).toBeTruthy();
  fireEvent.click(screen.getByRole("button", { name: "Send it again" }));
  await waitFor(() => expect(calls.some((call) => call.path === "me/verify-email")).toBe(true));
  await waitFor(() => expect(toasts.value.map((t) => t.message)).toContain("The email is on its way to ada@example.com."));
});

test("each row says how many days are left, as the TUI does", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  const now = Date.now();
  mockApi({
    "GET messages": () =>
      ok([
        stored({ sendDate: now + 31 * 24 * 3600 * 1000 - 60_000 }),
        stored({ id: "m2", title: "For Dora", status: "sending", sendDate: now - 60_000 }),
        stored({ id: "m3", title: "For Emil", status: "delivered", sendDate: now - 3600 * 1000 }),
      ]),
  });
  renderRoute("/dashboard");

  expect(await screen.findByRole("columnheader", { name: "Days left" })).toBeTruthy();
  const daysLeftOf = (title: string) =>
    within(screen.getByRole("cell", { name: title }).closest("tr")!)
      .getAllByRole("cell")
      .find((cell) => cell.getAttribute("data-label") === "Days left")?.textContent;
  expect(daysLeftOf("For Charles")).toBe("31 days");
  expect(daysLeftOf("For Dora")).toBe("today");
  expect(daysLeftOf("For Emil")).toBe("delivered");
  // The title's column has room at desktop width (the stylesheet's min-width).
  expect(screen.getByRole("cell", { name: "For Charles" }).className).toBe("message-title");
});

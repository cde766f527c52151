import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { mockApi, ok } from "../../../testing/api-mock";
import { plansHandler } from "../../../testing/plans";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import type { Message } from "../api/messages";

afterEach(() => {
  endSession();
  user.value = undefined;
});

const saved = (body: Partial<Message>): Message => ({
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

const noMail = "The domain lapsed.example does not receive email: check the address, or ann@lapsed.example will not get this message.";

test("a recipient domain without mail: the message is saved and the dialog stays to show the warning by the address", async () => {
  signInAs();
  const calls = mockApi({
    "GET messages": () => ok([]),
    ...plansHandler(),
    "POST messages": (call) =>
      ok(saved({ ...(call.body as Partial<Message>), warnings: [{ code: "recipient/domain-no-mail", field: "recipient", message: noMail }] })),
    "PATCH messages/m1": (call) => ok(saved(call.body as Partial<Message>)),
  });
  renderRoute("/dashboard");

  const add = (await screen.findByRole("button", { name: "Add Message" }, { timeout: 15000 })) as HTMLButtonElement;
  await waitFor(() => expect(add.disabled).toBe(false), { timeout: 5000 });
  fireEvent.click(add);
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  for (const [label, value] of [
    ["Title", "For Ann"],
    ["Message", "Hello"],
    ["Recipient name", "Ann"],
    ["Recipient email", "ann@lapsed.example"],
  ] as const) {
    fireEvent.change(within(dialog).getByLabelText(label), { target: { value } });
  }
  fireEvent.click(within(dialog).getByRole("button", { name: "Create" }));

  // Saved: in the list, and the dialog is now the saved message's, with the warning.
  expect(await screen.findByRole("cell", { name: "For Ann" }, { timeout: 5000 })).toBeTruthy();
  const edit = await screen.findByRole("dialog", { name: "Update Message" }, { timeout: 5000 });
  expect(within(edit).getByRole("status").textContent).toContain(noMail);
  expect((within(edit).getByLabelText("Recipient email") as HTMLInputElement).value).toBe("ann@lapsed.example");

  // Fixing the address saves an edit (no second message) and closes the dialog.
  fireEvent.change(within(edit).getByLabelText("Recipient email"), { target: { value: "ann@example.com" } });
  fireEvent.click(within(edit).getByRole("button", { name: "Update" }));
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull(), { timeout: 5000 });
  expect(calls.filter((c) => c.method === "POST" && c.path === "messages")).toHaveLength(1);
  expect(calls.find((c) => c.method === "PATCH")?.body).toMatchObject({ recipient: "ann@example.com" });
}, 45000);

test("Tell Ann now emails the saved recipient through the server, and says so", async () => {
  signInAs();
  const stored = saved({
    title: "For Ann",
    name: "Ann",
    recipient: "ann@example.com",
    message: "Hello",
    recipients: [{ name: "Ann", recipient: "ann@example.com", status: "pending" }],
  });
  const calls = mockApi({
    "GET messages": () => ok([stored]),
    ...plansHandler(),
    "POST messages/m1/notify": () => ok({ sent: 1 }),
  });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Edit" }, { timeout: 15000 }));
  const dialog = screen.getByRole("dialog", { name: "Update Message" });
  // An address being edited is not the saved one: no button until it is saved.
  fireEvent.change(within(dialog).getByLabelText("Recipient email"), { target: { value: "ann@other.example" } });
  expect(within(dialog).queryByRole("button", { name: "Tell Ann now" })).toBeNull();
  fireEvent.change(within(dialog).getByLabelText("Recipient email"), { target: { value: "ann@example.com" } });
  fireEvent.click(within(dialog).getByRole("button", { name: "Tell Ann now" }));
  expect(await screen.findByText("ann@example.com is told that a message waits for them.", {}, { timeout: 5000 })).toBeTruthy();
  expect(calls.find((c) => c.path === "messages/m1/notify")?.body).toEqual({ recipient: "ann@example.com" });
}, 45000);

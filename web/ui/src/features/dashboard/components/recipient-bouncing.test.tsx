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

const reason = "550 5.1.1 <ann@example.com>: User unknown";

const bouncing = (body: Partial<Message> = {}): Message => ({
  id: "m1",
  owner: "u1",
  title: "For Ann",
  name: "Ann",
  recipient: "ann@example.com",
  message: "Hello",
  interval: "1M",
  sendDate: Date.UTC(2027, 0, 15),
  isActive: true,
  featured: false,
  createdAt: Date.UTC(2026, 11, 15),
  status: "scheduled",
  recipients: [
    { name: "Ann", recipient: "ann@example.com", status: "pending", bouncing: { reason, at: Date.UTC(2026, 11, 16), email: "notice" } },
  ],
  ...body,
});

test("a bouncing recipient shows on its row with the fix; editing the address clears it", async () => {
  signInAs();
  const calls = mockApi({
    "GET messages": () => ok([bouncing()]),
    ...plansHandler(),
    "PATCH messages/m1": (call) => {
      // The server drops the mark of an address that changed.
      const body = call.body as { recipient?: string; recipients?: { recipient: string }[] };
      const address = body.recipients?.[0]?.recipient ?? body.recipient ?? "";
      return ok(bouncing({ recipient: address, recipients: [{ name: "Ann", recipient: address, status: "pending" }] }));
    },
  });
  renderRoute("/dashboard");

  const note = await screen.findByRole("note", {}, { timeout: 15000 });
  expect(note.textContent).toContain(`ann@example.com returned your notice: ${reason}`);
  fireEvent.click(within(note).getByRole("button", { name: "Change the address" }));
  const dialog = await screen.findByRole("dialog", { name: "Update Message" });
  expect(within(dialog).getByRole("status").textContent).toContain("Change the address to fix it");

  fireEvent.change(within(dialog).getByLabelText("Recipient email"), { target: { value: "ann@example.org" } });
  expect(within(dialog).queryByText(/Change the address to fix it/)).toBeNull();
  fireEvent.click(within(dialog).getByRole("button", { name: "Update" }));
  await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true), { timeout: 5000 });
  const patch = calls.find((c) => c.method === "PATCH")!.body as { recipient?: string; recipients?: { recipient: string }[] };
  expect(patch.recipients?.[0]?.recipient ?? patch.recipient).toBe("ann@example.org");
  await waitFor(() => expect(screen.queryByRole("note")).toBeNull(), { timeout: 5000 });
});

test("the email's link, /dashboard?edit=ID, opens that message's dialog", async () => {
  signInAs();
  mockApi({ "GET messages": () => ok([bouncing()]), ...plansHandler() });
  renderRoute("/dashboard?edit=m1");
  const dialog = await screen.findByRole("dialog", { name: "Update Message" }, { timeout: 15000 });
  expect(within(dialog).getByRole("status").textContent).toContain(reason);
});

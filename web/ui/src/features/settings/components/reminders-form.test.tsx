import { fireEvent, screen, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs, testUser } from "../../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

const general = { "GET me/providers": () => ok([]), "GET auth/providers": () => ok([]) };

test("the reminder steps and the second address are saved with the profile call", async () => {
  signInAs({ planId: "pro", planIsActive: true, reminderLadder: ["1d"], reminderAddress: "" });
  const calls = mockApi({
    ...general,
    "PATCH me": () => ok(testUser({ planId: "pro", planIsActive: true, reminderLadder: ["3d", "1d"], reminderAddress: "partner@example.com" })),
  });
  renderRoute("/settings/general");

  const form = await screen.findByRole("form", { name: "Reminders" });
  const oneDay = within(form).getByLabelText("1 day before") as HTMLInputElement;
  expect(oneDay.checked).toBe(true);
  expect((within(form).getByLabelText("3 days before") as HTMLInputElement).checked).toBe(false);
  fireEvent.click(within(form).getByLabelText("3 days before"));
  fireEvent.change(within(form).getByLabelText(/Second reminder address/), { target: { value: " partner@example.com " } });
  fireEvent.click(within(form).getByRole("button", { name: "Save reminders" }));

  expect(await within(form).findByText("Your reminders have been updated")).toBeTruthy();
  expect(calls.find((call) => call.method === "PATCH")?.body).toEqual({
    reminderLadder: ["3d", "1d"],
    reminderAddress: "partner@example.com",
  });
  expect(user.value?.reminderLadder).toEqual(["3d", "1d"]);
  expect(user.value?.reminderAddress).toBe("partner@example.com");
});

test("the server's rules show under the address field, and the plan's in the alert", async () => {
  signInAs();
  let reply = fail(400, "request/validation", "Please check the highlighted fields.", {
    reminderAddress: "Please enter a valid email address",
  });
  mockApi({ ...general, "PATCH me": () => reply });
  renderRoute("/settings/general");

  const form = await screen.findByRole("form", { name: "Reminders" });
  const address = within(form).getByLabelText(/Second reminder address/);
  fireEvent.change(address, { target: { value: "not-an-address" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save reminders" }));
  const help = await within(form).findByText("Please enter a valid email address");
  expect(address.getAttribute("aria-invalid")).toBe("true");
  expect(address.getAttribute("aria-describedby")).toBe(help.id);

  reply = fail(403, "plan/limit-reached", "A second reminder address is a Pro feature; upgrade to Pro to add one.");
  fireEvent.change(address, { target: { value: "partner@example.com" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save reminders" }));
  expect(await within(form).findByText("A second reminder address is a Pro feature; upgrade to Pro to add one.")).toBeTruthy();
  expect(user.value?.reminderAddress ?? "").toBe("");
});

test("the second address's state shows: waiting (with a resend), confirmed, refused", async () => {
  signInAs({ planId: "pro", planIsActive: true, reminderAddress: "partner@example.com", reminderAddressState: "unconfirmed" });
  let resend = () => ok(null);
  const calls = mockApi({ ...general, "POST me/reminder-address/confirm": () => resend() });
  renderRoute("/settings/general");

  const form = await screen.findByRole("form", { name: "Reminders" });
  expect(
    within(form).getByText(/partner@example.com: waiting for confirmation. It gets nothing until it follows the link we sent it./),
  ).toBeTruthy();
  fireEvent.click(within(form).getByRole("button", { name: "Resend the link" }));
  expect(await within(form).findByText("A new link is on its way to partner@example.com.")).toBeTruthy();
  expect(calls.filter((call) => call.path === "me/reminder-address/confirm")).toEqual([expect.objectContaining({ method: "POST" })]);

  resend = () =>
    fail(
      429,
      "auth/too-many-requests",
      "We have sent several emails to this address already: please look for them (and in the spam folder), or try again later.",
    );
  fireEvent.click(within(form).getByRole("button", { name: "Resend the link" }));
  expect(await within(form).findByText(/We have sent several emails to this address already/)).toBeTruthy();

  user.value = testUser({ planId: "pro", planIsActive: true, reminderAddress: "partner@example.com", reminderAddressState: "confirmed" });
  expect(await within(form).findByText("partner@example.com: confirmed. It gets a copy of every reminder.")).toBeTruthy();
  expect(within(form).queryByRole("button", { name: "Resend the link" })).toBeNull();

  user.value = testUser({ planId: "pro", planIsActive: true, reminderAddress: "partner@example.com", reminderAddressState: "refused" });
  expect(await within(form).findByText(/partner@example.com refused every email from us: it gets nothing./)).toBeTruthy();
  expect(within(form).queryByRole("button", { name: "Resend the link" })).toBeNull();
});

test("no state shows without a second address", async () => {
  signInAs({ planId: "pro", planIsActive: true, reminderAddress: "", reminderAddressState: "" });
  mockApi(general);
  renderRoute("/settings/general");

  const form = await screen.findByRole("form", { name: "Reminders" });
  expect(within(form).queryByText(/waiting for confirmation|confirmed|refused/)).toBeNull();
});

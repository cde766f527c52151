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

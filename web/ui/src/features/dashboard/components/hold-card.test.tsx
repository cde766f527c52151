import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { toasts } from "../../../lib/toasts";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";
import { signInAs, testUser } from "../../../testing/session";
import { formatDate } from "./dates";

afterEach(() => {
  endSession();
  user.value = undefined;
  toasts.value = [];
  vi.unstubAllGlobals();
});

const inTwoWeeks = () => {
  const d = new Date(Date.now() + 14 * 24 * 3600 * 1000);
  return { value: `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`, start: new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() };
};

test("a date field sets the hold; the dashboard then says until when", async () => {
  signInAs();
  const { value, start } = inTwoWeeks();
  const calls = mockApi({
    "GET messages": () => ok([]),
    "PUT me/hold": () => ok(testUser({ holdUntil: start })),
  });
  renderRoute("/dashboard");

  fireEvent.change(await screen.findByLabelText("Hold until"), { target: { value } });
  fireEvent.click(screen.getByRole("button", { name: "Hold my messages" }));

  expect(await screen.findByText(`Your messages are on hold until ${formatDate(start)}.`, { exact: false })).toBeTruthy();
  expect(calls.find((c) => c.method === "PUT" && c.path === "me/hold")?.body).toEqual({ until: start });
  expect(screen.queryByLabelText("Hold until")).toBeNull();
});

test("a held author sees the end date and ends the hold early", async () => {
  const until = Date.now() + 10 * 24 * 3600 * 1000;
  signInAs({ holdUntil: until });
  const calls = mockApi({
    "GET messages": () => ok([]),
    "DELETE me/hold": () => ok(testUser({ holdUntil: null })),
  });
  renderRoute("/dashboard");

  expect(await screen.findByText(`Your messages are on hold until ${formatDate(until)}.`, { exact: false })).toBeTruthy();
  fireEvent.click(screen.getByRole("button", { name: "End hold" }));
  expect(await screen.findByLabelText("Hold until")).toBeTruthy();
  expect(calls.some((c) => c.method === "DELETE" && c.path === "me/hold")).toBe(true);
  expect(screen.queryByText("Your messages are on hold", { exact: false })).toBeNull();
});

test("no date, or one the server refuses, says why under the field", async () => {
  signInAs();
  mockApi({
    "GET messages": () => ok([]),
    "PUT me/hold": () =>
      fail(422, "request/validation", "Please check the highlighted fields.", {
        until: "The hold must end in the future, at most 12 months from now",
      }),
  });
  renderRoute("/dashboard");

  fireEvent.click(await screen.findByRole("button", { name: "Hold my messages" }));
  expect(await screen.findByText("Please choose the date the hold ends")).toBeTruthy();

  fireEvent.change(screen.getByLabelText("Hold until"), { target: { value: inTwoWeeks().value } });
  fireEvent.click(screen.getByRole("button", { name: "Hold my messages" }));
  expect(await screen.findByText("The hold must end in the future, at most 12 months from now")).toBeTruthy();
  await waitFor(() => expect(user.value?.holdUntil ?? null).toBeNull());
});

import { fireEvent, screen, waitFor, within } from "@testing-library/react";
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

const codes = Array.from({ length: 10 }, (_, i) => `abcd-efgh-ijkl-mn${String(i).padStart(2, "0")}`);
const enrolment = { secret: "JBSWY3DPEHPK3PXP", uri: "otpauth://totp/Sendlater:ada?secret=JBSWY3DPEHPK3PXP", qr: "data:image/png;base64,iVBORw0KGgo=" };

test("set up: the QR code and the key, a wrong code said under the field, then the recovery codes shown once", async () => {
  signInAs();
  const calls = mockApi({
    "POST me/totp": () => ok(enrolment),
    "POST me/totp/confirm": (call) =>
      (call.body as { code: string }).code === "123456"
        ? ok({ recoveryCodes: codes })
        : fail(422, "request/validation", "Please check the fields.", { code: "The code is not right; check the app and try again" }),
    "GET me": () => ok(testUser({ totp: true, recoveryCodes: 10 })),
  });
  renderRoute("/settings/security");

  fireEvent.click(await screen.findByRole("button", { name: "Set up an authenticator app" }));
  const form = await screen.findByRole("form", { name: "Set up an authenticator app" });
  expect(within(form).getByRole("img", { name: /QR code/ }).getAttribute("src")).toBe(enrolment.qr);
  expect(within(form).getByTestId("totp-secret").textContent).toBe(enrolment.secret);

  fireEvent.change(within(form).getByLabelText("Code from the app"), { target: { value: "000000" } });
  fireEvent.click(within(form).getByRole("button", { name: "Turn on" }));
  expect(await within(form).findByText("The code is not right; check the app and try again")).toBeTruthy();

  fireEvent.change(within(form).getByLabelText("Code from the app"), { target: { value: " 123456 " } });
  fireEvent.click(within(form).getByRole("button", { name: "Turn on" }));
  const list = await screen.findByRole("list", { name: "Recovery codes" });
  expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual(codes);
  expect(screen.getByText(/will not be shown again/)).toBeTruthy();
  expect(screen.getByRole("button", { name: "Download" }).getAttribute("download")).toBe("sendlater-recovery-codes.txt");
  expect(await screen.findByText(/10 recovery codes remain/)).toBeTruthy();
  expect(calls.filter((c) => c.path === "me/totp/confirm").map((c) => c.body)).toEqual([{ code: "000000" }, { code: "123456" }]);
});

test("on: new recovery codes and turning it off, after signing in again", async () => {
  signInAs({ totp: true, recoveryCodes: 3 });
  let recent = false;
  const calls = mockApi({
    "POST me/recovery-codes": () =>
      recent ? ok({ recoveryCodes: codes }) : fail(401, "auth/requires-recent-login", "Please sign in again to complete this action."),
    "POST auth/reauth": () => {
      recent = true;
      return ok({ idToken: "token-2", expiresAt: Date.now() + 3_600_000 });
    },
    "DELETE me/totp": () => ok(null),
    "GET me": () => ok(testUser({ totp: !calls.some((c) => c.method === "DELETE"), recoveryCodes: 10 })),
  });
  renderRoute("/settings/security");
  expect(await screen.findByText(/3 recovery codes remain/)).toBeTruthy();

  fireEvent.click(screen.getByRole("button", { name: "New recovery codes" }));
  const dialog = await screen.findByRole("dialog");
  fireEvent.change(within(dialog).getByLabelText("Password"), { target: { value: "plum-kettle-orbit-47" } });
  fireEvent.click(within(dialog).getByRole("button", { name: /Continue|Sign in|Confirm/ }));
  expect(await screen.findByRole("list", { name: "Recovery codes" })).toBeTruthy();

  const off = screen.getByRole("button", { name: "Turn off" }) as HTMLButtonElement;
  await waitFor(() => expect(off.disabled).toBe(false));
  fireEvent.click(off);
  expect(await screen.findByRole("button", { name: "Set up an authenticator app" })).toBeTruthy();
  await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.path === "me/totp")).toBe(true));
});

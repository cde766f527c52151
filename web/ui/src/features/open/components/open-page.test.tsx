import { fireEvent, screen } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, expect, test, vi } from "vitest";
import { sealMessage } from "../../../lib/sealed";
import { renderRoute } from "../../../testing/render-route";

const passphrase = "violet harbor quietly mends seven copper lanterns";
const letter = "Dear Ann,\nthe deeds are in the blue box.";
let envelope = "";
let calls: string[] = [];

beforeAll(async () => {
  envelope = await sealMessage(passphrase, "m1AAAAAAAAAAAAAAAAAA", letter);
}, 60_000);

beforeEach(() => {
  calls = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      calls.push(url);
      if (url === "/api/open/m1AAAAAAAAAAAAAAAAAA.mac") {
        const data = { messageId: "m1AAAAAAAAAAAAAAAAAA", envelope, hint: "Lisbon", author: "Ada", to: "Ann", writtenAt: Date.UTC(2026, 2, 1) };
        return new Response(JSON.stringify({ status: "success", data }), { status: 200 });
      }
      return new Response(JSON.stringify({ status: "error", code: "request/not-found", message: "This link does not open a sealed message." }), { status: 404 });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

test("the link opens the letter in the browser: a wrong passphrase says so without a request", async () => {
  renderRoute("/open/m1AAAAAAAAAAAAAAAAAA.mac");
  // The page's chunk loads first: slow on a busy machine.
  expect(await screen.findByText("Lisbon", {}, { timeout: 30_000 })).toBeTruthy();
  expect(calls).toEqual(["/api/open/m1AAAAAAAAAAAAAAAAAA.mac"]);

  fireEvent.change(screen.getByLabelText("Passphrase"), { target: { value: "violet harbor quietly mends six copper lanterns" } });
  fireEvent.click(screen.getByRole("button", { name: "Open the message" }));
  expect((await screen.findByRole("alert", {}, { timeout: 30_000 })).textContent).toMatch(/^This passphrase does not open the message\./);
  expect(calls).toHaveLength(1);

  fireEvent.change(screen.getByLabelText("Passphrase"), { target: { value: passphrase } });
  fireEvent.click(screen.getByRole("button", { name: "Open the message" }));
  const shown = await screen.findByText(/the deeds are in the blue box/, {}, { timeout: 30_000 });
  expect(shown.textContent).toBe(letter);
  expect(screen.getByRole("button", { name: "Download as text" })).toBeTruthy();
  expect(calls).toHaveLength(1);
}, 90_000);

test("a wrong link says so; a test email's link opens nothing and asks nothing", { timeout: 90_000 }, async () => {
  renderRoute("/open/nope");
  expect((await screen.findByRole("alert", {}, { timeout: 30_000 })).textContent).toBe("This link does not open a sealed message.");
  renderRoute("/open/m1AAAAAAAAAAAAAAAAAA.test");
  expect(await screen.findByText(/This is the link of a preview or a test email/, {}, { timeout: 30_000 })).toBeTruthy();
  expect(calls).toEqual(["/api/open/nope"]);
});

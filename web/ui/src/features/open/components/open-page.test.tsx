import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, expect, test, vi } from "vitest";
import { sealMessage } from "../../../lib/sealed";
import { FileKeys, sealFile } from "../../../lib/sealed-file";
import { renderRoute } from "../../../testing/render-route";

const passphrase = "violet harbor quietly mends seven copper lanterns";
const letter = "Dear Ann,\nthe deeds are in the blue box.";
const deed = "the deed of the house, every page";
let envelope = "";
let sealedDeed: Uint8Array<ArrayBuffer>;
let calls: string[] = [];
// The view's files; a test adds them.
let files: { id: string; name: string; size: number; url: string }[] | undefined;

beforeAll(async () => {
  envelope = await sealMessage(passphrase, "m1AAAAAAAAAAAAAAAAAA", letter);
  const sealed = await sealFile(new FileKeys(passphrase), "m1AAAAAAAAAAAAAAAAAA", new Blob([deed]));
  sealedDeed = new Uint8Array(new Uint8Array(await sealed.arrayBuffer()));
}, 60_000);

beforeEach(() => {
  calls = [];
  files = undefined;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      calls.push(url);
      if (url === "/api/open/m1AAAAAAAAAAAAAAAAAA.mac") {
        const data = { messageId: "m1AAAAAAAAAAAAAAAAAA", envelope, hint: "Lisbon", author: "Ada", to: "Ann", writtenAt: Date.UTC(2026, 2, 1), files };
        return new Response(JSON.stringify({ status: "success", data }), { status: 200 });
      }
      if (url === "/files/f1.good") return new Response(sealedDeed, { status: 200, headers: { "Content-Length": String(sealedDeed.length) } });
      if (url === "/files/f2.bad") {
        const broken = sealedDeed.slice();
        broken[broken.length - 3]! ^= 1;
        return new Response(broken, { status: 200 });
      }
      if (url === "/files/f3.old") {
        const body = { status: "error", code: "attachment/link-expired", message: "This link downloaded for 90 days after the delivery; it has expired." };
        return new Response(JSON.stringify(body), { status: 410 });
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

test("once the letter is open, its files download from the links and open here; a broken one says so", { timeout: 90_000 }, async () => {
  const size = sealedDeed.length;
  files = [
    { id: "f1", name: "deed.pdf", size, url: "/files/f1.good" },
    { id: "f2", name: "photos.zip", size, url: "/files/f2.bad" },
    { id: "f3", name: "old.txt", size, url: "/files/f3.old" },
  ];
  const saved: { blob: Blob; name: string }[] = [];
  vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: (b: Blob) => (saved.push({ blob: b, name: "" }), "blob:x"), revokeObjectURL: () => undefined }));
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    saved[saved.length - 1]!.name = this.download;
  });
  renderRoute("/open/m1AAAAAAAAAAAAAAAAAA.mac");
  fireEvent.change(await screen.findByLabelText("Passphrase", {}, { timeout: 30_000 }), { target: { value: passphrase } });
  fireEvent.click(screen.getByRole("button", { name: "Open the message" }));
  const section = await screen.findByRole("region", { name: "Files" }, { timeout: 30_000 });
  const rows = within(section).getAllByRole("listitem");
  expect(rows.map((r) => r.querySelector(".file-name")!.textContent)).toEqual(["deed.pdf", "photos.zip", "old.txt"]);
  // The opened size: the sealed one less the header and a tag.
  expect(within(rows[0]!).getByText(`${deed.length} bytes`)).toBeTruthy();
  // The house's secondary button, like Print and Download as text (not Pico's filled grey one).
  const download = within(rows[0]!).getByRole("button", { name: "Download deed.pdf" });
  expect([...download.classList].sort()).toEqual(["outline", "secondary"]);
  expect([...screen.getByRole("button", { name: "Print" }).classList].sort()).toEqual(["outline", "secondary"]);

  fireEvent.click(within(rows[0]!).getByRole("button", { name: "Download deed.pdf" }));
  await waitFor(() => expect(saved).toHaveLength(1), { timeout: 30_000 });
  expect(saved[0]!.name).toBe("deed.pdf");
  expect(new TextDecoder().decode(await saved[0]!.blob.arrayBuffer())).toBe(deed);

  fireEvent.click(within(rows[1]!).getByRole("button", { name: "Download photos.zip" }));
  expect((await within(rows[1]!).findByRole("alert", {}, { timeout: 30_000 })).textContent).toBe(
    "photos.zip does not open with the message's passphrase: it is damaged, or it was sealed with another. Tell the sender.",
  );
  fireEvent.click(within(rows[2]!).getByRole("button", { name: "Download old.txt" }));
  expect((await within(rows[2]!).findByRole("alert", {}, { timeout: 30_000 })).textContent).toBe(
    "This link downloaded for 90 days after the delivery; it has expired.",
  );
  expect(saved).toHaveLength(1);
  expect(calls).toEqual(["/api/open/m1AAAAAAAAAAAAAAAAAA.mac", "/files/f1.good", "/files/f2.bad", "/files/f3.old"]);
  click.mockRestore();
});

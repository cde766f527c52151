// A message's files in the browser (issue 33), against a running server, as a Pro author:
//   node web/ui/e2e/attach.mjs <server url> <email> <password> <file> <file>
// `go test ./cmd/sendlater -run AttachInABrowser` signs the author up, makes them Pro, writes two
// files of a few MB and runs this: a new message with both files attached (the dialog's main button
// in sight on a phone), created, the progress bars seen moving while the parts go, the second
// file's connection dropped after its first part (a route aborts the PATCH) and the upload resumed
// from the server's offset (a HEAD, then the same part again); the message reopened lists both,
// and each downloaded as the author equals its file, byte for byte. Axe-clean, light and dark;
// screenshots of the dialog with files when SCREENSHOTS names a directory.
//
// The steps are a list run in order over one shared state (`s`): later issues append theirs
// (delivery through the SMTP server, the recipient's links) with `steps.push`, or import
// `attachSteps` and run more after them.
import { mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { axeViolations, checker, expect, launch, openPage, report, takeNoise, signIn } from "./browser.mjs";

const [base, email, password, ...paths] = process.argv.slice(2);
if (!base || !email || !password || paths.length !== 2) {
  console.error("usage: node attach.mjs <server url> <email> <password> <file> <file>");
  process.exit(2);
}
const shots = process.env.SCREENSHOTS;
if (shots) mkdirSync(shots, { recursive: true });

const title = "For Dora, with the papers";
const visible = (locator) => locator.first().waitFor({ state: "visible" });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What every step shares: the page, the files, what was seen. */
const s = { base, email, password, title, files: paths.map((path) => ({ path, name: basename(path), bytes: readFileSync(path) })) };

/** Screenshots in both themes on a desktop and a phone, the files' section scrolled into sight. */
async function photograph(name) {
  if (!shots) return;
  const { page } = s;
  const files = page.getByRole("dialog").getByRole("region", { name: "Files" });
  for (const [size, width, height] of [
    ["desktop", 1280, 800],
    ["phone", 390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    await files.evaluate((el) => el.scrollIntoView({ block: "center" })).catch(() => undefined);
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shots, `${name}-${scheme}-${size}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

async function axe(what) {
  for (const scheme of ["light", "dark"]) {
    await s.page.emulateMedia({ colorScheme: scheme });
    const violations = await axeViolations(s.page);
    expect(violations.length === 0, `axe on ${what} (${scheme}): ${violations.join("; ")}`);
  }
  await s.page.emulateMedia({ colorScheme: "light" });
}

/** Whether the element shows on screen and a click lands on it (not under another or off-screen). */
const hittable = (locator) =>
  locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const inside = r.bottom <= window.innerHeight && r.right <= window.innerWidth && r.top >= 0 && r.left >= 0;
    const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return inside && r.width > 0 && at !== null && (at === el || el.contains(at));
  });

export const attachSteps = [
  [
    "sign in",
    async () => {
      const context = await s.browser.newContext({ reducedMotion: "reduce", acceptDownloads: true });
      s.context = context;
      s.page = await openPage(context);
      const { page } = s;
      await signIn(page, base, email, password);
    },
  ],
  [
    "a new message with two files attached, its main button in sight on a phone",
    async () => {
      const { page } = s;
      await page.getByRole("button", { name: "Add Message" }).click();
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await visible(dialog);
      await dialog.getByLabel("Title").fill(title);
      await dialog.getByLabel("Recipient name").fill("Dora");
      await dialog.getByLabel("Recipient email").fill("dora@example.com");
      await dialog.getByLabel("Message").fill("Dear Dora,\n\nthe papers are attached: the deed and the photographs.\n\nAda");
      await dialog.locator('input[type="file"]').setInputFiles(s.files.map((f) => f.path));
      for (const f of s.files) await visible(dialog.getByRole("listitem").filter({ hasText: f.name }));
      await visible(dialog.getByText("Uploads when the message is created"));
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await hittable(dialog.getByRole("button", { name: "Create", exact: true })), "Create is out of sight on a phone with two files");
      await page.setViewportSize({ width: 1280, height: 800 });
      await axe("the dialog with files waiting");
      await photograph("message-dialog-files-waiting");
    },
  ],
  [
    "created: the progress bars move, a dropped part resumes from the server's offset",
    async () => {
      const { page } = s;
      // Parts go slowly enough to watch; the second file's second part is cut once.
      const patches = new Map();
      s.dropped = undefined;
      s.resumedWith = [];
      // The dropped PATCH is this test's doing, not noise.
      page.expected.push(/failed: PATCH .*\/files\//, /Failed to load resource: net::ERR_CONNECTION_RESET .*\/files\//);
      await page.route(/\/api\/messages\/[^/]+\/files\/[^/]+$/, async (route) => {
        const request = route.request();
        if (request.method() !== "PATCH") return route.continue();
        const url = request.url();
        if (!patches.has(url)) patches.set(url, 0);
        const n = patches.get(url) + 1;
        patches.set(url, n);
        const second = [...patches.keys()].indexOf(url) === 1;
        if (second && n === 2 && s.dropped === undefined) {
          s.dropped = { url, offset: Number(request.headers()["upload-offset"]) };
          return route.abort("connectionreset");
        }
        await sleep(400);
        return route.continue();
      });
      page.on("request", (request) => {
        if (s.dropped && request.url() === s.dropped.url && s.resumedWith.length < 3) {
          s.resumedWith.push(`${request.method()} ${request.headers()["upload-offset"] ?? ""}`.trim());
        }
      });
      // The page notes every value its bars take (the parts go faster than a poll from here).
      await page.evaluate(() => {
        window.barValues = {};
        const note = () => {
          for (const bar of document.querySelectorAll('[role="progressbar"], progress')) {
            const label = document.getElementById(bar.getAttribute("aria-labelledby") ?? "")?.textContent ?? "";
            (window.barValues[label] ??= []).push(Number(bar.getAttribute("aria-valuenow")));
          }
        };
        new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] });
      });
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await dialog.getByRole("button", { name: "Create", exact: true }).click();
      const edit = page.getByRole("dialog", { name: "Update Message" });
      await visible(edit);
      // Pictured on the way: a bar past 0 and short of 100.
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll("progress[aria-valuenow]")).some((bar) => {
          const now = Number(bar.getAttribute("aria-valuenow"));
          return now > 0 && now < 100;
        }),
      );
      await photograph("message-dialog-files-uploading");
      for (const f of s.files) await visible(edit.getByRole("button", { name: `Download ${f.name}` }));
      const seen = await page.evaluate(() => window.barValues);
      for (const f of s.files) {
        const values = seen[f.name] ?? [];
        expect(values.some((v) => v > 0 && v < 100), `${f.name}'s bar never showed progress: ${values.join(",")}`);
      }
      expect(s.dropped !== undefined, "no part was dropped");
      expect(s.dropped.offset > 0, `the dropped part was at ${s.dropped.offset}, not mid-way`);
      // After the drop: a HEAD for the server's offset, then the cut part again from there.
      expect(s.resumedWith[0] === "HEAD", `after the drop: ${s.resumedWith.join(", ")}`);
      expect(s.resumedWith[1] === `PATCH ${s.dropped.offset}`, `after the drop: ${s.resumedWith.join(", ")}`);
      await visible(edit.locator("[data-announce]").filter({ hasText: /uploaded\./ }));
      await page.unroute(/\/api\/messages\/[^/]+\/files\/[^/]+$/);
    },
  ],
  [
    "reopened, the message lists both files; each downloads as the author, byte for byte",
    async () => {
      const { page } = s;
      const edit = page.getByRole("dialog", { name: "Update Message" });
      await edit.getByRole("button", { name: "Close" }).click();
      const leave = edit.getByRole("button", { name: "Leave" });
      if (await leave.isVisible().catch(() => false)) await leave.click();
      await edit.waitFor({ state: "detached" });
      await page.reload();
      const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: title, exact: true }) });
      await row.getByRole("button", { name: "Edit", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Update Message" });
      await visible(dialog);
      for (const f of s.files) {
        const item = dialog.getByRole("listitem").filter({ hasText: f.name });
        await visible(item);
        const [download] = await Promise.all([page.waitForEvent("download"), item.getByRole("button", { name: `Download ${f.name}` }).click()]);
        expect(download.suggestedFilename() === f.name, `the download's name: ${download.suggestedFilename()}`);
        const got = readFileSync(await download.path());
        expect(Buffer.compare(got, f.bytes) === 0, `${f.name}: ${got.length} bytes downloaded of ${f.bytes.length}, or other bytes`);
      }
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await hittable(dialog.getByRole("button", { name: "Update", exact: true })), "Update is out of sight on a phone with two files");
      await page.setViewportSize({ width: 1280, height: 800 });
      await axe("the dialog with its files");
      await photograph("message-dialog-files");
      const noise = takeNoise(page);
      expect(noise.length === 0, `console or network noise: ${noise.join("; ")}`);
    },
  ],
];

const checks = checker();
s.browser = await launch();
try {
  for (const [name, step] of attachSteps) {
    await checks.check(name, step);
    if (checks.problems.length > 0) break; // each step builds on the one before
  }
} finally {
  await s.browser.close();
}
report(checks, "attachment checks");

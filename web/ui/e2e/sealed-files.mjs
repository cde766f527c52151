// A sealed message's files (issue 33), in a browser, against a running server:
//   node web/ui/e2e/sealed-files.mjs <server url> seal <email> <password> <file>
//   node web/ui/e2e/sealed-files.mjs <server url> open <link> <file>
// seal: a Pro author writes a new sealed message, attaches the file (the Files section says files
// are sealed with the passphrase), creates it; the file is sealed in the page before it goes (its
// upload's bytes begin with the sealed file's header and never hold the file's), then downloads
// as the author, opened with the dialog's passphrase, byte for byte.
// open: in a fresh context, the recipient's link: the passphrase opens the letter, the Files list
// shows the file's name and opened size, its Download saves the file opened, byte for byte.
// Axe clean, light and dark; screenshots of both when SCREENSHOTS names a directory.
// `go test ./cmd/sendlater -run SealedFilesInABrowser` runs seal, delivers the message through
// the test SMTP server, takes the open link from the email and runs open.
import { mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { axeViolations, checker, expect, launch, openPage, report, takeNoise, signIn } from "./browser.mjs";

const [base, phase, ...args] = process.argv.slice(2);
if (!base || !["seal", "open"].includes(phase)) {
  console.error("usage: node sealed-files.mjs <server url> seal <email> <password> <file> | open <link> <file>");
  process.exit(2);
}
const passphrase = "violet harbor quietly mends seven copper lanterns";
const letter = "Dear Ann,\n\nthe deed is attached, sealed like this letter.\n\nAda";
const shots = process.env.SCREENSHOTS;
if (shots) mkdirSync(shots, { recursive: true });
const visible = (locator, timeout = 60_000) => locator.first().waitFor({ state: "visible", timeout });

const checks = checker();
const { check } = checks;
const browser = await launch();
try {
  const context = await browser.newContext({ reducedMotion: "reduce", acceptDownloads: true });
  const page = await openPage(context);
  const quiet = (what) => {
    const noise = takeNoise(page);
    expect(noise.length === 0, `${what}: ${noise.join("; ")}`);
  };
  const axe = async (what) => {
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on ${what} (${scheme}): ${violations.join("; ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  };
  /** Screenshots in both themes on a desktop and a phone, the section scrolled into sight. */
  const photograph = async (name, section) => {
    if (!shots) return;
    for (const [size, width, height] of [
      ["desktop", 1280, 800],
      ["phone", 390, 844],
    ]) {
      await page.setViewportSize({ width, height });
      await section.evaluate((el) => el.scrollIntoView({ block: "center" })).catch(() => undefined);
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(shots, `${name}-${scheme}-${size}.png`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
  };
  const sameBytes = async (download, file) => {
    expect(download.suggestedFilename() === file.name, `the download's name: ${download.suggestedFilename()}`);
    const got = readFileSync(await download.path());
    expect(Buffer.compare(got, file.bytes) === 0, `${file.name}: ${got.length} bytes downloaded of ${file.bytes.length}, or other bytes`);
  };

  if (phase === "seal") {
    const [email, password, path] = args;
    const file = { path, name: basename(path), bytes: readFileSync(path) };
    // The bytes each upload's parts carried, in order.
    const sent = [];
    await page.route(/\/api\/messages\/[^/]+\/files\/[^/]+$/, (route) => {
      const r = route.request();
      if (r.method() === "PATCH") sent.push(r.postDataBuffer() ?? Buffer.alloc(0));
      return route.continue();
    });
    await check("seal: sign in", async () => {
      await signIn(page, base, email, password);
    });

    await check("seal: a new sealed message with a file, sealed in the page before it goes", async () => {
      await page.getByRole("button", { name: "Add Message" }).click();
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await visible(dialog);
      await dialog.getByLabel("Title").fill("For Ann, with the deed");
      await dialog.getByLabel("Recipient name").fill("Ann");
      await dialog.getByLabel("Recipient email").fill("ann@example.com");
      await dialog.getByRole("switch", { name: "Seal with a passphrase" }).check();
      await dialog.getByLabel("Message", { exact: true }).fill(letter);
      await dialog.getByLabel("Passphrase", { exact: true }).fill(passphrase);
      await dialog.getByLabel("Passphrase again").fill(passphrase);
      const files = dialog.getByRole("region", { name: "Files" });
      await visible(files.getByText("Files are sealed with the passphrase; their names stay readable, like the title."));
      await files.locator('input[type="file"]').setInputFiles(path);
      await visible(files.getByText("Uploads when the message is created"));
      await dialog.getByRole("button", { name: "Create", exact: true }).click();
      const edit = page.getByRole("dialog", { name: "Update Message" });
      await visible(edit.getByRole("button", { name: `Download ${file.name}` }), 120_000);
      const all = Buffer.concat(sent);
      expect(all.subarray(0, 14).toString() === "sealedfile:v1$", `the upload began with ${JSON.stringify(all.subarray(0, 40).toString())}`);
      expect(all.indexOf(file.bytes.subarray(0, 64)) < 0 && all.indexOf(file.bytes.subarray(-64)) < 0, "the upload carried the file's bytes");
      expect(all.length === 74 + file.bytes.length + 16 * Math.max(1, Math.ceil(file.bytes.length / 65536)), `${all.length} bytes sent`);
      quiet("create with a file");
    });

    await check("seal: the author's download opens with the dialog's passphrase", async () => {
      const edit = page.getByRole("dialog", { name: "Update Message" });
      const files = edit.getByRole("region", { name: "Files" });
      const [download] = await Promise.all([
        page.waitForEvent("download", { timeout: 60_000 }),
        files.getByRole("button", { name: `Download ${file.name}` }).click(),
      ]);
      await sameBytes(download, file);
      await axe("the dialog's sealed files");
      await photograph("message-dialog-sealed-files", files);
      quiet("the author's download");
    });
  } else {
    const [link, path] = args;
    const file = { path, name: basename(path), bytes: readFileSync(path) };
    await check("open: the passphrase opens the letter and lists the file", async () => {
      await page.goto(link);
      await visible(page.getByRole("heading", { name: "A sealed message for Ann" }));
      await page.getByLabel("Passphrase").fill(passphrase);
      await page.getByRole("button", { name: "Open the message" }).click();
      const files = page.getByRole("region", { name: "Files" });
      await visible(files.getByRole("listitem").filter({ hasText: file.name }));
      await axe("the open page with files");
      await photograph("open-sealed-files", files);
    });

    await check("open: the file downloads opened, byte for byte", async () => {
      const files = page.getByRole("region", { name: "Files" });
      const [download] = await Promise.all([
        page.waitForEvent("download", { timeout: 60_000 }),
        files.getByRole("button", { name: `Download ${file.name}` }).click(),
      ]);
      await sameBytes(download, file);
      quiet("the recipient's download");
    });
  }
} finally {
  await browser.close();
}
report(checks, `sealed files ${phase} checks`);

// Settings → General's files and data card (issue 33) in a real browser: the meter of the files'
// bytes against the plan, both exports offered, and the zip downloaded through the page (the
// session's token, a Blob handed to the browser) saved to a path for the Go test to unzip and
// compare; axe clean in light and dark; no console error.
//   node web/ui/e2e/export.mjs <server url> <email> <password> <where to save the zip>
// `go test ./cmd/sendlater -run ExportInABrowser` builds the binary, starts it, makes the account
// Pro with files and runs this.
import { axeViolations, checker, expect, launch, openPage, report, takeNoise } from "./browser.mjs";

const [base, email, password, saveTo] = process.argv.slice(2);
if (!base || !email || !password || !saveTo) {
  console.error("usage: node export.mjs <server url> <email> <password> <where to save the zip>");
  process.exit(2);
}
const checks = checker();
const browser = await launch();
try {
  const { check } = checks;
  const context = await browser.newContext({ reducedMotion: "reduce", acceptDownloads: true });
  const page = await openPage(context);
  await check("sign in", async () => {
    await page.goto(`${base}/auth/signin?next=/settings/general`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${base}/settings/general`);
  });
  await check("the meter says the bytes used of the plan's, and the files", async () => {
    const meter = page.getByRole("meter", { name: "Storage for files" });
    await meter.waitFor();
    const text = await meter.getAttribute("aria-valuetext");
    expect(text === "3 MB of 250 MB used", `the meter: ${text}`);
    await page.getByText(/2 files · up to 25 MB and 10 files a message/).waitFor();
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the settings (${scheme}): ${violations.join("; ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  });
  await check("the zip downloads", async () => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download with files (zip)" }).click(),
    ]);
    const name = download.suggestedFilename();
    expect(/^sendlater-export-\d{4}-\d{2}-\d{2}\.zip$/.test(name), `the download's name: ${name}`);
    await download.saveAs(saveTo);
  });
  await check("no console error", async () => {
    const noise = takeNoise(page);
    expect(noise.length === 0, noise.join("; "));
  });
} finally {
  await browser.close();
}
report(checks, "export checks");

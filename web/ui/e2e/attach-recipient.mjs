// The recipient's side of a message's files (issue 33), against a running server:
//   node web/ui/e2e/attach-recipient.mjs <server url> <foreign link> <link>=<file> [<link>=<file> ...]
// `go test ./cmd/sendlater -run AttachInABrowser` runs it after attach.mjs, once the message is
// delivered through the SMTP server: in a fresh context (no session, as a recipient opening the
// email), each link of the email downloads its file, equal byte for byte to what the author
// attached; a link made of one file's id and another's token (a foreign link) is refused with the
// "File not found" page, axe-clean in light and dark.
import { readFileSync } from "node:fs";
import { axeViolations, checker, expect, launch, openPage, report, takeNoise } from "./browser.mjs";

const [base, foreign, ...pairs] = process.argv.slice(2);
if (!base || !foreign || pairs.length === 0) {
  console.error("usage: node attach-recipient.mjs <server url> <foreign link> <link>=<file> ...");
  process.exit(2);
}
const downloads = pairs.map((pair) => {
  const at = pair.indexOf("=");
  return { link: pair.slice(0, at), path: pair.slice(at + 1) };
});

const checks = checker();
const browser = await launch();
try {
  const context = await browser.newContext({ reducedMotion: "reduce", acceptDownloads: true });
  const page = await openPage(context);
  page.expected = [/status of 404/, /HTTP 404 GET .*\/files\//]; // the foreign link's refusal, on purpose

  await checks.check("each link downloads its file", async () => {
    for (const { link, path } of downloads) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.goto(link).catch(() => undefined)]);
      const got = readFileSync(await download.path());
      const want = readFileSync(path);
      expect(got.equals(want), `${download.suggestedFilename()}: ${got.length} bytes, want ${want.length} equal to the attached file`);
    }
  });

  await checks.check("a foreign link is refused", async () => {
    const response = await page.goto(foreign);
    expect(response?.status() === 404, `a foreign link answered ${response?.status()}, want 404`);
    await page.getByRole("heading", { level: 1, name: "File not found" }).waitFor({ state: "visible" });
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the refusal (${scheme}): ${violations.join("; ")}`);
    }
  });
  await checks.check("no console or network noise", async () => {
    const noise = takeNoise(page);
    expect(noise.length === 0, `console or network noise: ${noise.join("; ")}`);
  });
} finally {
  await browser.close();
}
report(checks, "recipient's file checks");

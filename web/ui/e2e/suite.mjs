// The browser tests, against a running server, in one Chromium:
//   node web/ui/e2e/suite.mjs <server url>
// CHROMIUM names the browser (default /usr/bin/chromium); SCREENSHOTS names a folder to keep a
// screenshot of each step of the signed-in flow in. `go test ./cmd/sendlater -run Browser`
// builds the binary, starts it and runs this.
import { mkdirSync } from "node:fs";
import { checkAnonymousPages } from "./anonymous.mjs";
import { checker, launch, report } from "./browser.mjs";
import { checkFirstPaint } from "./first-paint.mjs";
import { checkSignedInFlow } from "./flow.mjs";
import { checkSecondFactor } from "./twofactor.mjs";

const base = process.argv[2];
if (!base) {
  console.error("usage: node suite.mjs <server url>");
  process.exit(2);
}
const screenshots = process.env.SCREENSHOTS;
if (screenshots) mkdirSync(screenshots, { recursive: true });

const checks = checker();
const browser = await launch();
try {
  await checkAnonymousPages(browser, base, checks);
  await checkFirstPaint(browser, base, checks);
  await checkSignedInFlow(browser, base, checks, screenshots);
  await checkSecondFactor(browser, base, checks);
} finally {
  await browser.close();
}

report(checks, "browser checks");

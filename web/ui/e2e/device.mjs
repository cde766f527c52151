// A terminal's sign-in approved in a real browser (`sendlater login --device`):
//   node web/ui/e2e/device.mjs <server url> <the terminal's link> <email> <password>
// Signed out, the link leads to sign in and back with the code; the page shows the terminal's
// code and what asks; axe finds nothing in light and dark; Approve. `go test ./cmd/sendlater -run
// DeviceSignInInABrowser` runs login --device, hands its link here, and waits for login to end.
import { axeViolations, checker, expect, launch, openPage, report, takeNoise } from "./browser.mjs";

const [base, link, email, password] = process.argv.slice(2);
if (!base || !link || !email || !password) {
  console.error("usage: node device.mjs <server url> <link> <email> <password>");
  process.exit(2);
}
const code = new URL(link).searchParams.get("code");
const checks = checker();
const { check } = checks;
const browser = await launch();
try {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const quiet = (what) => {
    const noise = takeNoise(page);
    expect(noise.length === 0, `${what}: ${noise.join("; ")}`);
  };

  await check("device: signed out, the link asks to sign in and comes back", async () => {
    await page.goto(link.replace(/^https?:\/\/[^/]+/, base));
    await page.waitForURL((url) => url.pathname === "/auth/signin");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/device" && url.searchParams.get("code") === code);
    quiet("sign in");
  });

  await check("device: the code and what asks, axe light and dark", async () => {
    await page.getByRole("heading", { name: /^Sign in sendlater on .+\?$/ }).waitFor();
    const shown = await page.getByLabel("The code").textContent();
    expect(shown === code, `the page shows ${shown}, the terminal ${code}`);
    const facts = await page.locator(".device-facts").textContent();
    expect(facts.includes("Sendlater CLI"), `what asks: ${facts}`);
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on /device (${scheme}): ${violations.join("; ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  });

  await check("device: approve", async () => {
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText(/is signed in\. Go back to your terminal/).waitFor();
    quiet("approve");
  });
} finally {
  await browser.close();
}
report(checks, "device sign-in checks");

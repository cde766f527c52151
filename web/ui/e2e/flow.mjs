// A real user's first visit, in headless Chromium against a running server:
// sign up -> dashboard -> create a message -> it is listed -> sign out ->
// sign in again -> it is still there (and after a reload, from the refresh cookie).
//
//   node web/ui/e2e/flow.mjs <server url>
//
// CHROMIUM names the browser (default /usr/bin/chromium; none is ever downloaded);
// SCREENSHOTS names a folder to keep a screenshot of each page in.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const base = process.argv[2];
if (!base) {
  console.error("usage: node flow.mjs <server url>");
  process.exit(2);
}
const screenshots = process.env.SCREENSHOTS;
if (screenshots) mkdirSync(screenshots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

const problems = [];
let step = "start";
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // Signed out, the first POST /api/auth/token answers 401, which Chromium logs.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      problems.push(`console: ${message.text()}`);
    }
  });

  const shot = async (name) => {
    if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  };
  const expectVisible = async (locator) => locator.first().waitFor({ state: "visible" });

  const email = `e2e-${Date.now()}@example.com`;
  const password = "plum-kettle-orbit-47";
  const title = "For Charles, in a month";

  step = "sign up";
  await page.goto(`${base}/auth/signup`);
  await expectVisible(page.getByRole("heading", { name: "Get yourself an account" }));
  await page.getByRole("button", { name: "Sign up" }).click();
  await expectVisible(page.getByText("Please enter your email"));
  await shot("signup-validation");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${base}/dashboard`);

  step = "empty dashboard";
  await expectVisible(page.getByText("Remaining messages: 1"));
  await expectVisible(page.getByRole("link", { name: "add your name in the settings" }));
  await shot("dashboard-empty");

  step = "create a message";
  await page.getByRole("button", { name: "Add Message" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Message" });
  await expectVisible(dialog);
  await expectVisible(dialog.getByText(/^The message will be delivered on .+\.$/));
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Recipient name").fill("Charles");
  await dialog.getByLabel("Recipient email").fill("charles@example.com");
  await dialog.getByLabel("Message").fill("Dear Charles,\nthe key is under the mat.");
  await dialog.getByLabel("Deliver after").selectOption("6M");
  await shot("message-dialog");
  await dialog.getByRole("button", { name: "Create" }).click();
  await dialog.waitFor({ state: "detached" });
  await expectVisible(page.getByRole("cell", { name: title, exact: true }));
  await expectVisible(page.getByText("Remaining messages: 0"));
  if (!(await page.getByRole("button", { name: "Add Message" }).isDisabled())) {
    throw new Error("Add Message stays enabled on the free plan with one message");
  }
  await shot("dashboard");

  step = "sign out";
  await page.getByText("Account", { exact: true }).click();
  await page.getByRole("button", { name: "Signout" }).first().click();
  await page.waitForURL(`${base}/`);
  await expectVisible(page.getByRole("link", { name: "Sign in" }));

  step = "sign in again";
  await page.goto(`${base}/dashboard`);
  await page.waitForURL(`${base}/auth/signin`);
  await expectVisible(page.getByRole("heading", { name: "Welcome back" }));
  await shot("signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("not-the-password-1");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expectVisible(page.getByRole("alert").getByText("The email or password is incorrect."));
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/dashboard`);
  await expectVisible(page.getByRole("cell", { name: title, exact: true }));

  step = "reload";
  await page.reload();
  await expectVisible(page.getByRole("cell", { name: title, exact: true }));
} catch (error) {
  problems.unshift(`${step}: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await browser.close();
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("flow ok");

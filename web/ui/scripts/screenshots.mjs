// The screenshots of every screen (docs/screenshots; the README shows the main ones), light and
// dark, desktop (1280x800) and phone (390x844), against a running server with a fresh data
// directory: a user signs up and writes one message; a second one has none (the empty state).
// The verification link is read from the server's log (outbox mode logs each email's links).
//   node scripts/screenshots.mjs <server url> <folder> [server log]
// `make screenshots` builds the binary, starts it and runs this.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launch } from "../e2e/browser.mjs";

const [base, folder, serverLog] = process.argv.slice(2);
if (!base || !folder) {
  console.error("usage: node scripts/screenshots.mjs <server url> <folder>");
  process.exit(2);
}
mkdirSync(folder, { recursive: true });
const devices = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

/** Signs a new account up in its own context, whose refresh cookie its shots reuse. */
async function signUp(browser, email) {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await context.newPage();
  await page.goto(`${base}/auth/signup`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("plum-kettle-orbit-47");
  await page.getByLabel("Confirm password").fill("plum-kettle-orbit-47");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${base}/dashboard`);
  return { context, page };
}

/**
 * The verification link the server logged for an address (masked there as "b***@example.com"),
 * waiting for the email to be written; undefined without a log.
 */
async function verifyLink(email) {
  if (!serverLog) return undefined;
  const masked = `${email.slice(0, 1)}***@${email.split("@")[1]}`;
  for (let i = 0; i < 50; i++) {
    const line = readFileSync(serverLog, "utf8")
      .split("\n")
      .find((l) => l.includes("mode=verifyEmail") && l.includes(`to=${masked}`));
    const match = line?.match(/https?:\/\/[^\s,"\]]*mode=verifyEmail[^\s,"\]]*/);
    if (match) return new URL(match[0]).pathname + new URL(match[0]).search;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

const browser = await launch();
try {
  // One account with a message, whose refresh cookie every signed-in shot reuses.
  const { context: setup, page } = await signUp(browser, `ada-${Date.now()}@example.com`);
  await page.goto(`${base}/settings/general`);
  await page.getByLabel("Name", { exact: true }).fill("Ada Lovelace");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Your profile has been updated").waitFor();
  await page.goto(`${base}/dashboard`);
  await page.getByRole("button", { name: "Add Message" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Message" });
  await dialog.getByLabel("Title").fill("For Charles, on his 30th");
  await dialog.getByLabel("Recipient name").fill("Charles");
  await dialog.getByLabel("Recipient email").fill("charles@example.com");
  await dialog.getByLabel("Message").fill("Dear Charles,\nthe letter I promised you ten years ago.");
  await dialog.getByLabel("Deliver after").selectOption("6M");
  await dialog.getByRole("button", { name: "Create" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.close();
  const newcomerEmail = `bea-${Date.now()}@example.org`;
  const { context: newcomer, page: newcomerPage } = await signUp(browser, newcomerEmail);
  await newcomerPage.close();
  const verify = await verifyLink(newcomerEmail);
  let verifiedReply;
  // The same context signs in for every shot: the refresh cookie rotates on each page load,
  // and a copy presented twice would end the session.
  const anonymous = await browser.newContext({ reducedMotion: "reduce" });
  for (const [device, viewport] of Object.entries(devices)) {
    for (const scheme of ["light", "dark"]) {
      const shoot = async (context, name, path, prepare, before) => {
        const shotPage = await context.newPage();
        if (before) await before(shotPage);
        await shotPage.setViewportSize(viewport);
        await shotPage.emulateMedia({ colorScheme: scheme });
        await shotPage.goto(base + path);
        await shotPage.getByRole("heading", { level: 1 }).first().waitFor();
        if (prepare) {
          await prepare(shotPage).catch(async (error) => {
            console.error(`${name}: the page showed:\n${await shotPage.locator("body").innerText()}`);
            throw error;
          });
        }
        await shotPage.waitForLoadState("networkidle");
        await shotPage.screenshot({ path: join(folder, `${name}-${scheme}-${device}.png`) });
        await shotPage.close();
      };
      await shoot(anonymous, "home", "/");
      await shoot(anonymous, "pricing", "/pricing");
      await shoot(anonymous, "about", "/about");
      await shoot(anonymous, "faq", "/faq");
      await shoot(anonymous, "contact", "/contact");
      await shoot(anonymous, "signin", "/auth/signin");
      await shoot(anonymous, "signup", "/auth/signup");
      await shoot(anonymous, "not-found", "/no/such-page");
      await shoot(anonymous, "postpone-invalid", "/postpone/0?code=AAAAAAAAAA", (p) => p.getByRole("alert").waitFor());
      await shoot(setup, "dashboard", "/dashboard", (p) => p.getByRole("cell", { name: "For Charles, on his 30th", exact: true }).waitFor());
      await shoot(setup, "message-dialog", "/dashboard", async (p) => {
        await p.getByRole("button", { name: "Edit" }).click();
        await p.getByRole("dialog", { name: "Update Message" }).waitFor();
      });
      await shoot(setup, "settings", "/settings/general", (p) => p.getByRole("heading", { name: "Sign-in methods" }).waitFor());
      await shoot(setup, "settings-security", "/settings/security", (p) => p.getByRole("heading", { name: "Access tokens" }).waitFor());
      await shoot(setup, "settings-password", "/settings/password");
      await shoot(newcomer, "dashboard-empty", "/dashboard", (p) => p.getByText("No messages yet.").waitFor());
      // A verification link works once: the first shot uses it, the others get its reply again.
      if (verify) {
        const replay = async (p) => {
          if (verifiedReply) {
            await p.route("**/api/auth/action/apply", (route) => route.fulfill({ ...verifiedReply, contentType: "application/json" }));
            return;
          }
          p.on("response", async (response) => {
            if (response.url().endsWith("/api/auth/action/apply")) verifiedReply = { status: response.status(), body: await response.text() };
          });
        };
        await shoot(newcomer, "verify-email", verify, (p) => p.getByText("Go to your dashboard").waitFor(), replay);
      }
    }
  }
} finally {
  await browser.close();
}

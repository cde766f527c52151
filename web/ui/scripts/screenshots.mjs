// The screenshots of the README (docs/screenshots): home, pricing, the dashboard, the message
// dialog and sign in, light and dark, desktop (1280x800) and phone (390x844), against a running
// server with a fresh data directory (a user is signed up and writes one message).
//   node scripts/screenshots.mjs <server url> <folder>
// `make screenshots` builds the binary, starts it and runs this.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch } from "../e2e/browser.mjs";

const [base, folder] = process.argv.slice(2);
if (!base || !folder) {
  console.error("usage: node scripts/screenshots.mjs <server url> <folder>");
  process.exit(2);
}
mkdirSync(folder, { recursive: true });
const devices = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

const browser = await launch();
try {
  // One account with a message, whose refresh cookie every signed-in shot reuses.
  const setup = await browser.newContext({ reducedMotion: "reduce" });
  const page = await setup.newPage();
  await page.goto(`${base}/auth/signup`);
  await page.getByLabel("Email").fill(`ada-${Date.now()}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill("plum-kettle-orbit-47");
  await page.getByLabel("Confirm password").fill("plum-kettle-orbit-47");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${base}/dashboard`);
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
  // The same context signs in for every shot: the refresh cookie rotates on each page load,
  // and a copy presented twice would end the session.
  const anonymous = await browser.newContext({ reducedMotion: "reduce" });
  for (const [device, viewport] of Object.entries(devices)) {
    for (const scheme of ["light", "dark"]) {
      const shoot = async (context, name, path, prepare) => {
        const shotPage = await context.newPage();
        await shotPage.setViewportSize(viewport);
        await shotPage.emulateMedia({ colorScheme: scheme });
        await shotPage.goto(base + path);
        await shotPage.getByRole("heading", { level: 1 }).first().waitFor();
        if (prepare) await prepare(shotPage);
        await shotPage.waitForLoadState("networkidle");
        await shotPage.screenshot({ path: join(folder, `${name}-${scheme}-${device}.png`) });
        await shotPage.close();
      };
      await shoot(anonymous, "home", "/");
      await shoot(anonymous, "pricing", "/pricing");
      await shoot(anonymous, "signin", "/auth/signin");
      await shoot(setup, "dashboard", "/dashboard", (p) => p.getByRole("cell", { name: "For Charles, on his 30th", exact: true }).waitFor());
      await shoot(setup, "message-dialog", "/dashboard", async (p) => {
        await p.getByRole("button", { name: "Edit" }).click();
        await p.getByRole("dialog", { name: "Update Message" }).waitFor();
      });
    }
  }
} finally {
  await browser.close();
}

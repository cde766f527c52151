// The screenshots of Settings → General's files and data card (issue 33), light and dark, desktop
// (1280x800) and phone (390x844): a Pro account with files (its meter and both exports) and a
// Starter account (the upgrade hint). Against a running server with a fresh data directory; the
// plan and the files are set with the binary's own commands (the admin socket).
//   node scripts/screenshots-files.mjs <server url> <folder> <sendlater binary> <data dir>
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, signUp } from "../e2e/browser.mjs";

const [base, folder, binary, dataDir] = process.argv.slice(2);
if (!base || !folder || !binary || !dataDir) {
  console.error("usage: node scripts/screenshots-files.mjs <server url> <folder> <sendlater binary> <data dir>");
  process.exit(2);
}
mkdirSync(folder, { recursive: true });
const devices = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const cli = (...args) => execFileSync(binary, ["--data-dir", dataDir, ...args], { encoding: "utf8" });

/** Signs a new account up in its own context (browser.mjs's signUp), whose cookie its shots reuse. */
async function signUpIn(browser, email) {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await context.newPage();
  await signUp(page, base, email);
  return { context, page };
}

const browser = await launch();
try {
  const adaEmail = `ada-${Date.now()}@example.com`;
  const { context: ada, page } = await signUpIn(browser, adaEmail);
  cli("users", "set-plan", adaEmail, "pro");
  await page.goto(`${base}/dashboard`);
  await page.getByRole("button", { name: "Add Message" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Message" });
  await dialog.getByLabel("Title").fill("For Charles, on his 30th");
  await dialog.getByLabel("Recipient name").fill("Charles");
  await dialog.getByLabel("Recipient email").fill("charles@example.com");
  await dialog.getByLabel("Message").fill("Dear Charles,\nthe deeds are attached.");
  await dialog.getByRole("button", { name: "Create" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.close();
  const [message] = JSON.parse(cli("messages", "list", "--json"));
  for (const [name, size] of [["deeds.pdf", 18_400_000], ["photo-of-the-house.jpg", 2_300_000], ["voice-note.m4a", 4_100_000]]) {
    const path = join(dataDir, name);
    writeFileSync(path, Buffer.alloc(size, 7));
    cli("messages", "attach", message.id, path);
  }
  const { context: bea } = await signUpIn(browser, `bea-${Date.now()}@example.org`);

  for (const [device, viewport] of Object.entries(devices)) {
    for (const scheme of ["light", "dark"]) {
      const shoot = async (context, name) => {
        const shot = await context.newPage();
        await shot.setViewportSize(viewport);
        await shot.emulateMedia({ colorScheme: scheme });
        await shot.goto(`${base}/settings/general`);
        const heading = shot.getByRole("heading", { name: "Files and your data" });
        await shot.getByRole("button", { name: /Download/ }).first().waitFor();
        await shot.waitForLoadState("networkidle");
        await heading.evaluate((h) => h.closest("article").scrollIntoView({ block: "center" }));
        await shot.screenshot({ path: join(folder, `${name}-${scheme}-${device}.png`) });
        await shot.close();
      };
      await shoot(ada, "settings-files");
      await shoot(bea, "settings-files-starter");
    }
  }
} finally {
  await browser.close();
}

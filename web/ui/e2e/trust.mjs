// Messages people can trust, in a browser, against a running server whose user has Pro:
//   node web/ui/e2e/trust.mjs <server url> <email> <password> create|history
// create: sign in, add a message with three recipients (adding and removing rows), see it listed,
// preview each recipient's email in the dialog and send a test to me.
// history: sign in, open the delivered message's History from its row, see one "Sent" per
// recipient. `go test ./cmd/sendlater -run TrustInABrowser` signs the user up, grants Pro,
// runs create, delivers the message with `sendlater messages deliver-now`, then runs history.
import { axeViolations, checker, expect, launch, openPage, report, takeNoise, signIn } from "./browser.mjs";

const [base, email, password, phase] = process.argv.slice(2);
if (!base || !email || !password || !["create", "history"].includes(phase)) {
  console.error("usage: node trust.mjs <server url> <email> <password> create|history");
  process.exit(2);
}
const title = "For the three of you";
const recipients = [
  ["Ann", "ann@example.com"],
  ["Ben", "ben@example.com"],
  ["Cleo", "cleo@example.com"],
];

const checks = checker();
const { check } = checks;
const browser = await launch();
const visible = (locator) => locator.first().waitFor({ state: "visible" });
try {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const quiet = (what) => {
    const noise = takeNoise(page);
    expect(noise.length === 0, `${what}: ${noise.join("; ")}`);
  };

  await check("sign in", async () => {
    await signIn(page, base, email, password);
  });

  if (phase === "create") {
    await check("three recipients", async () => {
      await page.getByRole("button", { name: "Add Message" }).click();
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await visible(dialog);
      for (let i = 0; i < 3; i++) await dialog.getByRole("button", { name: "Add recipient" }).click();
      await dialog.getByRole("button", { name: "Remove recipient 4" }).click();
      expect((await dialog.getByLabel("Recipient 4 name").count()) === 0, "the removed row stays");
      await dialog.getByLabel("Title").fill(title);
      await dialog.getByLabel("Message").fill("Dear all,\nthe key is under the mat.");
      for (const [i, [name, address]] of recipients.entries()) {
        await dialog.getByLabel(i === 0 ? "Recipient name" : `Recipient ${i + 1} name`).fill(name);
        await dialog.getByLabel(i === 0 ? "Recipient email" : `Recipient ${i + 1} email`).fill(address);
      }
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the dialog with three recipients: ${violations.join("; ")}`);
      await dialog.getByRole("button", { name: "Create" }).click();
      await dialog.waitFor({ state: "detached" });
      const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: title, exact: true }) });
      await visible(row.getByText("and 2 more"));
      quiet("three recipients");
    });

    await check("the preview, then a test to me", async () => {
      await page.getByRole("button", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: "Update Message" });
      await dialog.getByRole("button", { name: "Preview" }).click();
      const preview = dialog.getByRole("region", { name: "Preview" });
      await visible(preview);
      // The letter opens with its own greeting, so no "Dear {name}," is added above it.
      await visible(preview.getByText(/the key is under the mat\./).first());
      for (const [name] of recipients) {
        expect((await preview.getByText(`Dear ${name},`).count()) === 0, `a second salutation, "Dear ${name},", in the preview`);
      }
      const greetings = await preview.getByText(/Dear all,/).count();
      expect(greetings === recipients.length, `${greetings} previews open with the letter's own greeting, want ${recipients.length}`);
      await dialog.getByRole("button", { name: "Send a test to me" }).click();
      await visible(page.getByText("3 tests are on their way to you, one as each recipient will receive it."));
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      quiet("preview and test");
    });

    await check("a hold shown on the dashboard, then ended", async () => {
      const d = new Date(Date.now() + 14 * 24 * 3600 * 1000);
      const value = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
      await page.getByLabel("Hold until").fill(value);
      await page.getByRole("button", { name: "Hold my messages" }).click();
      await visible(page.getByText("Your messages are on hold until", { exact: false }));
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the held dashboard: ${violations.join("; ")}`);
      await page.reload();
      await visible(page.getByText("Your messages are on hold until", { exact: false }));
      await page.getByRole("button", { name: "End hold" }).click();
      await visible(page.getByLabel("Hold until"));
      quiet("hold");
    });
  } else {
    await check("the history shows one sent per recipient", async () => {
      const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: title, exact: true }) });
      await visible(row.getByRole("cell", { name: "Delivered" }));
      await row.getByRole("button", { name: `History: ${title}` }).click();
      const dialog = page.getByRole("dialog", { name: `History of ${title}` });
      await visible(dialog.locator('li[data-kind="sent"]'));
      for (const [, address] of recipients) {
        await visible(dialog.locator('li[data-kind="sent"]').filter({ hasText: address }));
      }
      const sent = await dialog.locator('li[data-kind="sent"]').count();
      expect(sent === 3, `${sent} "Sent" entries, want one per recipient`);
      await visible(dialog.locator('li[data-kind="created"]'));
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the history: ${violations.join("; ")}`);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      quiet("history");
    });
  }
  await context.close();
} finally {
  await browser.close();
}
report(checks, `trust checks (${phase})`);

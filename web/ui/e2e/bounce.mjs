// A bouncing recipient on the dashboard, in a browser, against a running server whose test SMTP
// server took the notice and whose inbound listener took the DSN for it:
//   node web/ui/e2e/bounce.mjs <server url> <email> <password> <title> <bounced address> <new address>
// `go test ./cmd/sendlater -run BounceInABrowser` signs the author up, creates the message, tells
// the recipient now, sends a DSN to the notice's return path (the envelope sender the SMTP server
// saw), waits until the API shows the mark, then runs this: the row says which address returned
// which email and why, with "Change the address" (axe-clean, light and dark; screenshots on a
// desktop and a phone when SCREENSHOTS names a directory); the fix opens the dialog with the
// warning under the address, and saving a new address clears the row's mark.
import { mkdirSync } from "node:fs";
import { axeViolations, checker, expect, launch, openPage, photograph as shotsOf, report, takeNoise, signIn } from "./browser.mjs";

const [base, email, password, title, bounced, fixed] = process.argv.slice(2);
if (!base || !email || !password || !title || !bounced || !fixed) {
  console.error("usage: node bounce.mjs <server url> <email> <password> <title> <bounced address> <new address>");
  process.exit(2);
}
const shots = process.env.SCREENSHOTS;
if (shots) mkdirSync(shots, { recursive: true });

const checks = checker();
const { check } = checks;
const browser = await launch();
const visible = (locator) => locator.first().waitFor({ state: "visible" });

try {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const row = () => page.getByRole("row").filter({ has: page.getByRole("cell", { name: title, exact: true }) });
  const photograph = (name) => shotsOf(page, shots, name);

  await check("sign in", async () => {
    await signIn(page, base, email, password);
  });

  await check("the row says which address returned which email and why, with the fix", async () => {
    const note = row().getByRole("note");
    await visible(note);
    const words = await note.first().innerText();
    expect(words.includes(`${bounced} returned your notice`), `the row's note: ${words}`);
    expect(words.includes("User unknown"), `the row's note gives no reason: ${words}`);
    await visible(row().getByRole("button", { name: "Change the address" }));
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the bouncing row (${scheme}): ${violations.join("; ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await photograph("dashboard-bouncing");
  });

  await check("the fix: the dialog says it under the address, a new address clears the mark", async () => {
    await row().getByRole("button", { name: "Change the address" }).click();
    const edit = page.getByRole("dialog", { name: "Update Message" });
    await visible(edit);
    await visible(edit.getByText(`${bounced} returned your notice`));
    await photograph("message-dialog-bouncing");
    await edit.getByLabel("Recipient email").fill(fixed);
    await edit.getByRole("button", { name: "Update", exact: true }).click();
    await edit.waitFor({ state: "detached" });
    await visible(row().getByText(fixed));
    expect((await row().getByRole("note").count()) === 0, "the row still shows a bouncing recipient");
    await page.reload();
    await visible(row().getByText(fixed));
    expect((await row().getByRole("note").count()) === 0, "after a reload the row shows a bouncing recipient");
    const noise = takeNoise(page);
    expect(noise.length === 0, `console or network noise: ${noise.join("; ")}`);
  });
} finally {
  await browser.close();
}

report(checks, "bouncing recipient checks");

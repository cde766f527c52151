// The recipient domain check in a browser, against a server whose mail.dns_server is the test's
// DNS server (example.com receives mail, lapsed.example does not):
//   node web/ui/e2e/domain-warning.mjs <server url>
// `go test ./cmd/sendlater -run DomainWarningInABrowser` starts the DNS server, the binary and this.
// A message to an address at lapsed.example is saved, and the dialog stays open on it with the
// warning under the address (axe-clean, light and dark); fixing the address saves and closes.
import { axeViolations, checker, expect, launch, openPage, report, signUp, takeNoise } from "./browser.mjs";

const [base] = process.argv.slice(2);
if (!base) {
  console.error("usage: node domain-warning.mjs <server url>");
  process.exit(2);
}

const checks = checker();
const { check } = checks;
const browser = await launch();
const visible = (locator) => locator.first().waitFor({ state: "visible" });

try {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const title = "For Cy, whose domain lapsed";

  await check("sign up", async () => {
    await signUp(page, base, `e2e-${Date.now()}@example.com`);
  });

  await check("a recipient domain without mail is a warning under the address, the message saved", async () => {
    await page.getByRole("button", { name: "Add Message" }).click();
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    await dialog.getByLabel("Title").fill(title);
    await dialog.getByLabel("Recipient name").fill("Cy");
    await dialog.getByLabel("Recipient email").fill("cy@lapsed.example");
    await dialog.getByLabel("Message").fill("Dear Cy,\nthe key is under the mat.");
    await dialog.getByRole("button", { name: "Create" }).click();
    const edit = page.getByRole("dialog", { name: "Update Message" });
    const warning = edit.getByRole("status").filter({ hasText: "lapsed.example does not receive email" });
    await visible(warning);
    await visible(page.getByRole("cell", { name: title, exact: true }));
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on the warning (${scheme}): ${violations.join("; ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  });

  await check("fixing the address saves without a warning and closes the dialog", async () => {
    const edit = page.getByRole("dialog", { name: "Update Message" });
    await edit.getByLabel("Recipient email").fill("cy@example.com");
    await edit.getByRole("button", { name: "Update", exact: true }).click();
    await edit.waitFor({ state: "detached" });
    await visible(page.getByRole("cell", { name: title, exact: true }));
    expect((await page.getByRole("cell", { name: title, exact: true }).count()) === 1, "the message was made twice");
    const noise = takeNoise(page);
    expect(noise.length === 0, `console or network noise: ${noise.join("; ")}`);
  });
} finally {
  await browser.close();
}

report(checks, "domain warning checks");

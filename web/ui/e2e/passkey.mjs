// Passkeys in a real browser, with Chromium's virtual authenticator (the DevTools protocol's
// WebAuthn domain: CTAP2, internal, resident keys, a verified user), against a server whose
// base_url is http://localhost:<port>:
//   node web/ui/e2e/passkey.mjs <server url>
// `go test ./cmd/sendlater -run PasskeysInABrowser` starts the binary and this.
// Sign up -> Settings → Security: add a passkey named "Test laptop", listed -> rename it -> sign
// out -> the email field's autofill signs in (conditional mediation) -> sign out -> "Sign in with a
// passkey", no password typed -> the dashboard -> remove the passkey, which then signs in no more.
// axe on Settings → Security and on the sign-in page, light and dark. With SCREENSHOTS=<dir>, the
// two screens are also photographed at 1280x800 and 390x844 in both themes.
import { mkdirSync } from "node:fs";
import { axeViolations, checker, expect, launch, openPage, photograph as shotsOf, report, signUp, takeNoise } from "./browser.mjs";

const [base] = process.argv.slice(2);
if (!base) {
  console.error("usage: node passkey.mjs <server url>");
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
  // Chromium's virtual authenticator answers a conditional request at once (no one picks from an
  // autofill list): a tab that set this flag has no autofill, so its button is what signs in.
  await context.addInitScript(() => {
    try {
      if (sessionStorage.getItem("e2e-no-autofill") && window.PublicKeyCredential) {
        window.PublicKeyCredential.isConditionalMediationAvailable = async () => false;
      }
    } catch {
      // about:blank has no storage.
    }
  });
  const page = await openPage(context);
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;

  const quiet = (what) => {
    const noise = takeNoise(page);
    expect(noise.length === 0, `${what}: ${noise.join("; ")}`);
  };
  const axe = async (what) => {
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.length === 0, `axe on ${what} (${scheme}): ${violations.join("; ")}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
  };
  const photograph = (name) => shotsOf(page, shots, name);
  const section = () => page.getByRole("region", { name: "Passkeys" });
  const email = `e2e-passkey-${Date.now()}@example.com`;
  const password = "plum-kettle-orbit-47";

  await check("passkey: sign up", async () => {
    await signUp(page, base, email, password);
  });

  await check("passkey: none yet, add one named Test laptop, listed", async () => {
    await page.goto(`${base}/settings/security`);
    await visible(section().getByText("No passkeys yet."));
    await axe("Settings → Security without a passkey");
    await section().getByLabel("Passkey name").fill("Test laptop");
    await section().getByRole("button", { name: "Add a passkey" }).click();
    await visible(section().getByText("The passkey “Test laptop” is added"));
    const item = section().getByRole("listitem").filter({ hasText: "Test laptop" });
    await visible(item);
    expect((await item.textContent()).includes("Not used to sign in yet"), "a new passkey says it has not signed in yet");
    const stored = await credentials();
    expect(stored.length === 1 && stored[0].isResidentCredential, `the authenticator holds ${stored.length} credentials`);
    await axe("Settings → Security with a passkey");
    quiet("adding a passkey");
  });

  await check("passkey: rename it", async () => {
    await section().getByRole("button", { name: "Rename Test laptop" }).click();
    const field = section().getByLabel("New name for “Test laptop”");
    await field.fill("Work laptop");
    await section().getByRole("button", { name: "Save name" }).click();
    await visible(section().getByText("The passkey is now named “Work laptop”."));
    await visible(section().getByRole("listitem").filter({ hasText: "Work laptop" }));
    // The name is the server's: a reload shows it.
    await page.reload();
    await visible(section().getByRole("listitem").filter({ hasText: "Work laptop" }));
    await photograph("settings-security");
    quiet("renaming a passkey");
  });

  const signOut = async () => {
    await page.getByText("Account", { exact: true }).click();
    await page.getByRole("button", { name: "Sign out" }).first().click();
    await page.waitForURL(`${base}/`);
  };

  await check("passkey: sign out, then the email field's autofill signs in (conditional mediation)", async () => {
    await signOut();
    const conditional = page.waitForRequest(
      (r) => r.url().endsWith("/api/auth/passkey/begin") && JSON.parse(r.postData() ?? "{}").conditional === true,
    );
    await page.goto(`${base}/auth/signin`);
    await conditional;
    await page.waitForURL(`${base}/dashboard`);
    quiet("the autofill's sign-in");
  });

  await check("passkey: sign out, then sign in with the passkey button, no password typed", async () => {
    await signOut();
    await page.evaluate(() => sessionStorage.setItem("e2e-no-autofill", "1"));
    await page.goto(`${base}/auth/signin`);
    await visible(page.getByRole("button", { name: "Sign in with a passkey", disabled: false }));
    const field = page.getByLabel("Email");
    expect((await field.getAttribute("autocomplete")) === "username webauthn", "the email field offers passkeys in its autofill");
    await axe("the sign-in page");
    await photograph("signin");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(`${base}/dashboard`);
    quiet("a passkey sign-in");
  });

  await check("passkey: listed as used, then removed", async () => {
    await page.goto(`${base}/settings/security`);
    const item = section().getByRole("listitem").filter({ hasText: "Work laptop" });
    await visible(item);
    expect((await item.textContent()).includes("Last used on"), "the passkey says when it was last used");
    await section().getByRole("button", { name: "Remove Work laptop" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove “Work laptop”?" });
    await dialog.getByRole("button", { name: "Remove passkey" }).click();
    await visible(section().getByText("The passkey “Work laptop” is removed"));
    await visible(section().getByText("No passkeys yet."));
    quiet("removing a passkey");
  });

  await check("passkey: a removed passkey no longer signs in", async () => {
    await signOut();
    await page.goto(`${base}/auth/signin`);
    page.expected.push(/HTTP 401 POST .*\/api\/auth\/passkey$/, /status of 401/);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await visible(page.getByRole("alert").filter({ hasText: "This passkey could not sign you in." }));
    expect(page.url() === `${base}/auth/signin`, `moved to ${page.url()}`);
    quiet("a removed passkey");
  });

  await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
  await context.close();
} finally {
  await browser.close();
}

report(checks, "passkey checks");

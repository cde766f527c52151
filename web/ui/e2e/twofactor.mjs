// The second factor in a real browser: sign up -> Settings → Security -> set up an
// authenticator app with a code computed here (RFC 6238) -> the recovery codes shown once ->
// sign out -> sign in: the code step, the app's next code -> sign out -> sign in with a
// recovery code, which says how many remain. axe on the new screens, light and dark.
import { createHmac } from "node:crypto";
import { axeViolations, expect, openPage, signUp, takeNoise } from "./browser.mjs";

/** The bytes of a base32 (RFC 4648) secret. */
function base32(secret) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of secret.replace(/=+$/, "").toUpperCase()) {
    value = ((value << 5) | alphabet.indexOf(c)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The authenticator app's code at ms (SHA-1, 6 digits, 30 s). */
export function totp(secret, ms = Date.now()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 30_000)));
  const mac = createHmac("sha1", base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

export async function checkSecondFactor(browser, base, { check }) {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const visible = async (locator) => locator.first().waitFor({ state: "visible" });
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
  const signOut = async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByText("Account", { exact: true }).click();
    await page.getByRole("button", { name: "Sign out" }).first().click();
    await page.waitForURL(`${base}/`);
  };
  const signInToCodeStep = async () => {
    await page.goto(`${base}/auth/signin`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await visible(page.getByRole("form", { name: "Second step" }));
  };

  const email = `e2e-2fa-${Date.now()}@example.com`;
  const password = "plum-kettle-orbit-47";
  let secret = "";
  let codes = [];

  await check("2fa: sign up", async () => {
    await signUp(page, base, email, password);
  });

  await check("2fa: set up an authenticator app", async () => {
    await page.goto(`${base}/settings/security`);
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const form = page.getByRole("form", { name: "Set up an authenticator app" });
    await visible(form.getByRole("img", { name: /QR code/ }));
    secret = (await form.getByTestId("totp-secret").textContent()).trim();
    expect(/^[A-Z2-7]{32}$/.test(secret), `the key "${secret}"`);
    await axe("the authenticator app's set-up");
    await form.getByLabel("Code from the app").fill(totp(secret));
    await form.getByRole("button", { name: "Turn on" }).click();
    const list = page.getByRole("list", { name: "Recovery codes" });
    await visible(list);
    codes = (await list.getByRole("listitem").allTextContents()).map((c) => c.trim());
    expect(codes.length === 10, `${codes.length} recovery codes`);
    await visible(page.getByText("10 recovery codes remain."));
    await axe("the recovery codes");
    quiet("set up");
  });

  await check("2fa: sign in with the app's code", async () => {
    await signOut();
    await signInToCodeStep();
    await axe("the sign-in's code step");
    // The set-up used this step's code: the next step's is the next the app shows.
    await page.getByLabel("Code").fill(totp(secret, Date.now() + 30_000));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${base}/dashboard`);
    quiet("the app's code");
  });

  await check("2fa: sign in with a recovery code", async () => {
    await signOut();
    await signInToCodeStep();
    await page.getByLabel("Code").fill(codes[0]);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${base}/dashboard`);
    await visible(page.getByText(/9 recovery codes remain/));
    quiet("a recovery code");
  });

  await context.close();
}

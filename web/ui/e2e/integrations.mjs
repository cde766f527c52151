// Payments and social sign-in in a browser, against a server configured with Stripe (stripe-mock
// behind billing/stripemock's peer, whose hosted checkout holds its webhook until this script
// releases it, as Stripe's often arrive after the customer) and the OAuth peer as Google:
//   node web/ui/e2e/integrations.mjs <server url> <email the Google account has>
// `go test ./cmd/sendlater -run PaymentsAndSocialInABrowser` starts both peers, the binary and this.
// Paying: a free user with one message buys Pro; back on the dashboard the paid banner and an
// enabled Add Message appear without a reload (the live list's session user), and a second
// message is added. Social: the Google button's popup signs in and lands on the dashboard, and
// the sign-in page marks Google "Last used" next time.
import { axeViolations, checker, expect, launch, openPage, report, signUp, takeNoise } from "./browser.mjs";

const [base, googleEmail] = process.argv.slice(2);
if (!base || !googleEmail) {
  console.error("usage: node integrations.mjs <server url> <google account's email>");
  process.exit(2);
}

const checks = checker();
const { check } = checks;
const browser = await launch();
const visible = (locator) => locator.first().waitFor({ state: "visible" });
const quiet = (page, what) => {
  const noise = takeNoise(page);
  expect(noise.length === 0, `${what}: ${noise.join("; ")}`);
};

async function createMessage(page, title) {
  await page.getByRole("button", { name: "Add Message" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Message" });
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Recipient name").fill("Charles");
  await dialog.getByLabel("Recipient email").fill("charles@example.com");
  await dialog.getByLabel("Message").fill("Dear Charles,\nthe key is under the mat.");
  await dialog.getByRole("button", { name: "Create" }).click();
  await dialog.waitFor({ state: "detached" });
  await visible(page.getByRole("cell", { name: title, exact: true }));
}

try {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const addMessage = page.getByRole("button", { name: "Add Message" });

  await check("a free user with one message", async () => {
    await signUp(page, base, `payer-${Date.now()}@example.com`);
    await createMessage(page, "The first one");
    expect(await addMessage.isDisabled(), "Add Message is enabled on the free plan with one message");
    quiet(page, "the free user");
  });

  await check("pricing comes from the server and sells Pro", async () => {
    await page.goto(`${base}/pricing`);
    await visible(page.getByRole("heading", { name: "Pro" }));
    await visible(page.getByText(/only adding messages beyond the free plan's one stops/));
    const violations = await axeViolations(page);
    expect(violations.length === 0, `axe on pricing: ${violations.join("; ")}`);
    await page.getByRole("button", { name: "Choose Pro" }).click();
    // The card checkout is Stripe's page, not ours.
    await page.waitForURL(/\/pay\/\d+$/);
    await visible(page.getByRole("heading", { name: /^Pay price_/ }));
  });

  await check("paid: the banner and Add Message come without a reload", async () => {
    const peer = new URL(page.url()).origin;
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(`${base}/dashboard?paid=true`);
    // Stripe's webhook is still on its way: the page waits for it.
    await visible(page.getByText(/Stripe is confirming your payment/));
    expect(await addMessage.isDisabled(), "Add Message is enabled before the plan is");
    // A marker on the window survives only if the page does not reload.
    await page.evaluate(() => (window.stillTheSamePage = true));
    const released = await fetch(`${peer}/webhooks/release`, { method: "POST" });
    expect(released.ok, `the peer did not deliver the webhook: ${await released.text()}`);
    await visible(page.getByText("You are now subscribed to the Pro plan"));
    expect(await page.evaluate(() => window.stillTheSamePage === true), "the dashboard reloaded");
    expect(!(await addMessage.isDisabled()), "Add Message is still disabled on Pro");
    await createMessage(page, "The second one");
    await visible(page.getByRole("cell", { name: "The first one", exact: true }));
    quiet(page, "after paying");
  });
  await context.close();

  const social = await browser.newContext({ reducedMotion: "reduce" });
  const signin = await openPage(social);
  await check("Google in a popup signs in and lands on the dashboard", async () => {
    await signin.goto(`${base}/auth/signin`);
    const google = signin.getByRole("button", { name: "Google" });
    await visible(google);
    await visible(signin.getByText("OR", { exact: true }));
    const opened = signin.waitForEvent("popup");
    await google.click();
    const popup = await opened;
    const popupNoise = [];
    popup.on("console", (m) => m.type() === "error" && popupNoise.push(m.text()));
    await signin.waitForURL(`${base}/dashboard`);
    await visible(signin.getByRole("heading", { name: "Dashboard" }));
    // The popup closes itself once it handed the result over.
    if (!popup.isClosed()) await popup.waitForEvent("close", { timeout: 10_000 });
    expect(popupNoise.length === 0, `the popup's console: ${popupNoise.join("; ")}`);
    await signin.goto(`${base}/settings/general`);
    await visible(signin.getByLabel("Email"));
    expect((await signin.getByLabel("Email").inputValue()) === googleEmail, "signed in as someone else");
    await visible(signin.getByRole("region", { name: "Sign-in methods" }).getByText("Google"));
    quiet(signin, "the social sign-in");
  });

  await check("Google is marked Last used next time", async () => {
    await signin.getByText("Ada Lovelace", { exact: true }).first().click();
    await signin.getByRole("button", { name: "Sign out" }).first().click();
    await signin.waitForURL(`${base}/`);
    await signin.goto(`${base}/auth/signin`);
    await visible(signin.getByRole("button", { name: "Google Last used" }));
    quiet(signin, "signed out");
  });
  await social.close();
} finally {
  await browser.close();
}

report(checks, "payment and social browser checks");

// The public pages as the server sends them (prerendered at build time, scripts/prerender.mjs):
// their content is in the HTML, with JavaScript off; and a visitor of home, pricing or sign-in
// downloads only the first script until they interact, after which the page works as the app,
// a form keeping what was typed into it before (docs/web.md, "First paint").
import { homeTexts } from "./anonymous.mjs";
import { expect, openPage, takeNoise } from "./browser.mjs";

// [path, h1, further texts the HTML alone shows]
const prerenderedPages = [
  ["/", "Send important messages when the time is right!", homeTexts],
  ["/about", "About", ["Meet the Team"]],
  ["/faq", "Frequently Asked Questions", []],
  ["/legal/terms-of-service", "Terms of Service", []],
  ["/legal/privacy-policy", "Privacy Policy", []],
  ["/pricing", "Pricing", ["Most popular", "Up to 10 recipients per message", "Trigger an HTTP endpoint", "Choose the plan that makes sense for you."]],
  ["/contact", "Contact Us", ["Send message"]],
  ["/auth/signin", "Welcome back", ["Email", "Password", "Sign in", "Forgot Password?"]],
  ["/auth/signup", "Get yourself an account", ["Email", "Password", "Confirm password", "Sign up"]],
];

// docs/web.md: the JavaScript a visitor downloads before interacting with the home page.
const homeScriptBudget = 35 * 1024;

export async function checkFirstPaint(browser, base, { check }) {
  const off = await browser.newContext({ javaScriptEnabled: false });
  const still = await off.newPage();
  for (const [path, h1, texts] of prerenderedPages) {
    await check(`${path} without JavaScript`, async () => {
      const response = await still.goto(base + path);
      expect(response.status() === 200, `HTTP ${response.status()}`);
      const heading = still.getByRole("heading", { level: 1 });
      expect((await heading.count()) === 1, `${await heading.count()} h1 elements`);
      expect((await heading.textContent()) === h1, `h1 "${await heading.textContent()}", want "${h1}"`);
      for (const text of texts) {
        expect(await still.getByText(text, { exact: true }).first().isVisible(), `"${text}" is not shown`);
      }
      // A form sent before the app runs (or without it) is a POST, which the server refuses:
      // never the password in the URL of a GET.
      const methods = await still.locator("form").evaluateAll((forms) => forms.map((form) => form.method));
      expect(methods.every((method) => method === "post"), `forms sent as ${methods.join(", ")}`);
      // Styled: Pico's container, not a bare page.
      const width = await still.locator("main.container").evaluate((main) => getComputedStyle(main).maxWidth);
      expect(width !== "none", "the stylesheet is not applied");
    });
  }
  await off.close();

  const context = await browser.newContext({ colorScheme: "light" });
  const page = await openPage(context);
  for (const path of ["/", "/pricing", "/auth/signin"]) {
    await check(`${path} downloads only its first script before the visitor interacts`, async () => {
      const scripts = [];
      const seen = (request) => request.resourceType() === "script" && scripts.push(request);
      page.on("requestfinished", seen);
      await page.goto(base + path);
      await page.waitForLoadState("networkidle");
      page.off("requestfinished", seen);
      let bytes = 0;
      for (const request of scripts) bytes += (await request.sizes()).responseBodySize;
      expect(scripts.length === 1, `${scripts.length} scripts: ${scripts.map((r) => r.url()).join(", ")}`);
      expect(bytes <= homeScriptBudget, `${bytes} B of JavaScript, the budget is ${homeScriptBudget} B`);
    });
  }
  await check("/pricing's plans lead to sign up from the visitor's first click", async () => {
    await page.goto(base + "/pricing");
    await page.waitForLoadState("networkidle");
    await page.getByRole("button", { name: "Choose Pro" }).click();
    await page.waitForURL(`${base}/auth/signup?next=/purchase/pro`);
    await page.getByRole("heading", { level: 1, name: "Get yourself an account" }).waitFor();
  });
  await check("/ works as the app from the visitor's first click", async () => {
    await page.goto(base + "/");
    await page.waitForLoadState("networkidle");
    // The first click both starts the app and, once it runs, switches the theme.
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
    // Links move within the app.
    await page.getByRole("link", { name: "How it works" }).click();
    await page.getByRole("heading", { level: 1, name: "Frequently Asked Questions" }).waitFor();
    const noise = takeNoise(page);
    expect(noise.length === 0, noise.join("; "));
  });
  await context.close();

  await checkColdForms(browser, base, { check });
}

/**
 * Someone who opens sign up or sign in and types at once: the field takes each key as it is
 * pressed, before the app has even loaded (held back here, so that it surely has not), and the
 * form, once the app runs, sends what was typed, whether Enter or the button sent it first.
 */
async function checkColdForms(browser, base, { check }) {
  const email = `cold-${Date.now()}@example.com`;
  const password = "quiet-harbour-lantern-82";
  // Every script asked for after the first (the app, the page's chunk) waits until released.
  const holdTheApp = async (page) => {
    let release;
    const released = new Promise((resolve) => (release = resolve));
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    return release;
  };
  // Signed in: the dashboard, quietly; the context is done.
  const onTheDashboard = async (page, context) => {
    await page.waitForURL(`${base}/dashboard`);
    await page.getByText("Remaining messages: 1").first().waitFor();
    const noise = takeNoise(page);
    expect(noise.length === 0, noise.join("; "));
    await context.close();
  };
  const typeInto = async (page, label, text) => {
    await page.getByLabel(label, { exact: true }).click();
    await page.keyboard.type(text);
    const value = await page.getByLabel(label, { exact: true }).inputValue();
    expect(value === text, `${label} holds "${value}" right after typing "${text}"`);
  };

  await check("signing up from a cold /auth/signup, typing at once and pressing Enter", async () => {
    const context = await browser.newContext({ colorScheme: "light" });
    const page = await openPage(context);
    await page.goto(`${base}/auth/signup`);
    await page.waitForLoadState("networkidle");
    const release = await holdTheApp(page);
    await typeInto(page, "Email", email);
    await typeInto(page, "Password", password);
    await typeInto(page, "Confirm password", password);
    await page.keyboard.press("Enter");
    expect(page.url() === `${base}/auth/signup`, `sent before the app ran: ${page.url()}`);
    release();
    await onTheDashboard(page, context);
  });

  await check("signing in from a cold /auth/signin, typing at once and clicking Sign in", async () => {
    const context = await browser.newContext({ colorScheme: "light" });
    const page = await openPage(context);
    await page.goto(`${base}/auth/signin`);
    await page.waitForLoadState("networkidle");
    const release = await holdTheApp(page);
    await typeInto(page, "Email", email);
    await typeInto(page, "Password", password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    release();
    await onTheDashboard(page, context);
  });

  await check("signing in from a cold /auth/signin as fast as a script can", async () => {
    const context = await browser.newContext({ colorScheme: "light" });
    const page = await openPage(context);
    await page.goto(`${base}/auth/signin`);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await onTheDashboard(page, context);
  });
}

// The public pages as the server sends them (prerendered at build time, scripts/prerender.mjs):
// their content is in the HTML, with JavaScript off; and the home page's visitor downloads only
// the first script until they interact, after which the page works as the app.
import { homeTexts } from "./anonymous.mjs";
import { expect, openPage, takeNoise } from "./browser.mjs";

// [path, h1, further texts the HTML alone shows]
const prerenderedPages = [
  ["/", "Send important messages when the time is right!", homeTexts],
  ["/about", "About", ["Meet the Team"]],
  ["/faq", "Frequently Asked Questions", []],
  ["/legal/terms-of-service", "Terms of Service", []],
  ["/legal/privacy-policy", "Privacy Policy", []],
  ["/pricing", "Pricing", []],
  ["/contact", "Contact Us", ["Send message"]],
  ["/auth/signin", "Welcome back", ["Email", "Password"]],
  ["/auth/signup", "Get yourself an account", ["Email", "Password"]],
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
  await check("/ downloads only its first script before the visitor interacts", async () => {
    const scripts = [];
    const seen = (request) => request.resourceType() === "script" && scripts.push(request);
    page.on("requestfinished", seen);
    await page.goto(base + "/");
    await page.waitForLoadState("networkidle");
    page.off("requestfinished", seen);
    let bytes = 0;
    for (const request of scripts) bytes += (await request.sizes()).responseBodySize;
    expect(scripts.length === 1, `${scripts.length} scripts: ${scripts.map((r) => r.url()).join(", ")}`);
    expect(bytes <= homeScriptBudget, `${bytes} B of JavaScript, the budget is ${homeScriptBudget} B`);
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
}

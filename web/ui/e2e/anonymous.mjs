// Every route as an anonymous visitor: the HTTP status, one h1, the page's own title, no
// console error or failing request, and no serious or critical axe violation in light and dark.
import { axeViolations, expect, openPage, takeNoise } from "./browser.mjs";

// [path, HTTP status, title, h1 (or where the page sends the visitor), failures the page provokes on purpose]
export const anonymousRoutes = [
  ["/", 200, "Sendlater", "Send important messages when the time is right!"],
  ["/about", 200, "About - Sendlater", "About"],
  ["/faq", 200, "FAQ - Sendlater", "Frequently Asked Questions"],
  ["/contact", 200, "Contact - Sendlater", "Contact Us"],
  ["/pricing", 200, "Pricing - Sendlater", "Pricing"],
  ["/auth/signup", 200, "Get yourself an account - Sendlater", "Get yourself an account"],
  ["/auth/signin", 200, "Welcome back - Sendlater", "Welcome back"],
  ["/auth/forgotpass", 200, "Get a new password - Sendlater", "Get a new password"],
  ["/auth/changepass", 200, "Choose a new password - Sendlater", "Choose a new password"],
  ["/auth/other", 200, "Get yourself an account - Sendlater", "Get yourself an account"],
  ["/legal/terms-of-service", 200, "Terms of Service - Sendlater", "Terms of Service"],
  ["/legal/privacy-policy", 200, "Privacy Policy - Sendlater", "Privacy Policy"],
  ["/legal/cookies", 200, "Terms of Service - Sendlater", "Terms of Service"],
  ["/firebase-action?mode=nothing", 200, "Email action - Sendlater", "Email link"],
  ["/firebase-action?mode=verifyEmail&oobCode=not-a-code", 200, "Email action - Sendlater", "Verify your email", [/HTTP 400 POST .*\/api\/auth\/action\/apply/, /status of 400/]],
  ["/postpone/no-such-message?code=abcdefghij", 200, "Postpone - Sendlater", "Postpone a message", [/HTTP 403 GET .*\/api\/postpone\//, /status of 403/]],
  ["/dashboard", 200, "Welcome back - Sendlater", "Welcome back"],
  ["/settings/general", 200, "Welcome back - Sendlater", "Welcome back"],
  ["/purchase/pro", 200, "Welcome back - Sendlater", "Welcome back"],
  ["/purchase/gold", 404, "Page not found - Sendlater", "The page /purchase/gold could not be found", [/HTTP 404 GET .*\/purchase\/gold/, /status of 404/]],
  ["/no/such/page", 404, "Page not found - Sendlater", "The page /no/such/page could not be found", [/HTTP 404 GET .*\/no\/such\/page/, /status of 404/]],
];

// What the home page must show (SPEC.md section 2).
export const homeTexts = [
  "All the steps you need to secure your message",
  "Here's what people are saying",
  "Ready to get started?",
  "Get Started",
];

export async function checkAnonymousPages(browser, base, { check }) {
  for (const scheme of ["light", "dark"]) {
    // Reduced motion: Pico's colour transitions would have axe measure contrast halfway.
    const context = await browser.newContext({ colorScheme: scheme, reducedMotion: "reduce" });
    const page = await openPage(context);
    for (const [path, status, title, h1, expected = []] of anonymousRoutes) {
      await check(`${path} (${scheme})`, async () => {
        page.expected = expected;
        const response = await page.goto(base + path);
        expect(response.status() === status, `HTTP ${response.status()}, want ${status}`);
        const heading = page.getByRole("heading", { level: 1 });
        await heading.first().waitFor({ state: "visible" });
        await page.waitForLoadState("networkidle");
        expect((await heading.count()) === 1, `${await heading.count()} h1 elements`);
        expect((await heading.textContent()) === h1, `h1 "${await heading.textContent()}", want "${h1}"`);
        expect((await page.title()) === title, `title "${await page.title()}", want "${title}"`);
        expect((await page.evaluate(() => document.documentElement.dataset.theme)) === scheme, "theme not followed");
        if (path === "/") {
          for (const text of homeTexts) await page.getByText(text, { exact: true }).first().waitFor({ state: "visible" });
        }
        const violations = await axeViolations(page);
        expect(violations.length === 0, `axe: ${violations.join("; ")}`);
        const noise = takeNoise(page);
        expect(noise.length === 0, noise.join("; "));
      });
    }
    await context.close();
  }
}

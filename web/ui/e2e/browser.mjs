// What the browser tests share: one Chromium (the system's, through playwright-core; none is
// ever downloaded), pages that record every console error, page error and failed request, and
// axe-core's accessibility check.
import { AxeBuilder } from "@axe-core/playwright";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** The Chromium every script here drives, and the flags of the project's standards. */
export const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
export const chromiumFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Screenshots of page as it stands into the folder shots (nothing when it is unset): desktop and
 * phone, light and dark, named NAME-SCHEME-SIZE.png like docs/screenshots. The page is left at
 * the desktop size in light.
 */
export async function photograph(page, shots, name) {
  if (!shots) return;
  for (const [size, width, height] of [
    ["desktop", 1280, 800],
    ["phone", 390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shots, `${name}-${scheme}-${size}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

export function launch() {
  return chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
}

/**
 * A page that notes what a visitor's console would show. `expected` (a list of regular
 * expressions) names the failures a page provokes on purpose, such as the API's 404 for a made-up
 * link; everything else lands in `page.noise`.
 */
export async function openPage(context, { width = 1280, height = 800 } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  page.setDefaultTimeout(15_000);
  page.noise = [];
  page.expected = [];
  const note = (text) => {
    if (!page.expected.some((pattern) => pattern.test(text))) page.noise.push(text);
  };
  page.on("pageerror", (error) => note(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") note(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) note(`HTTP ${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on("requestfailed", (request) => {
    const failure = request.failure()?.errorText ?? "";
    // A navigation cancels what the page before it was still loading.
    if (failure !== "net::ERR_ABORTED") note(`failed: ${request.method()} ${request.url()} ${failure}`);
  });
  return page;
}

/** Signs up at /auth/signup with email and password, as a visitor types it, and waits for the dashboard. */
export async function signUp(page, base, email, password = "plum-kettle-orbit-47") {
  await page.goto(`${base}/auth/signup`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${base}/dashboard`);
}

/** Signs in at /auth/signin with email and password and waits for the dashboard. */
export async function signIn(page, base, email, password) {
  await page.goto(`${base}/auth/signin?next=/dashboard`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${base}/dashboard`);
}

/** Takes what the page logged so far, leaving it empty. */
export function takeNoise(page) {
  return page.noise.splice(0);
}

/** The serious and critical accessibility violations axe finds on the page as it is. */
export async function axeViolations(page, include) {
  const builder = new AxeBuilder({ page });
  if (include) builder.include(include);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/** Runs the named checks in order, collecting failures instead of stopping at the first. */
export function checker() {
  const problems = [];
  let count = 0;
  return {
    problems,
    get count() {
      return count;
    },
    async check(name, fn) {
      count++;
      try {
        await fn();
      } catch (error) {
        problems.push(`${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      }
    },
  };
}

/** Ends a script: its failures on stderr and exit status 1, or how many checks of what passed. */
export function report(checks, what) {
  if (checks.problems.length > 0) {
    console.error(checks.problems.join("\n"));
    console.error(`${checks.count - checks.problems.length} passed, ${checks.problems.length} failed`);
    process.exit(1);
  }
  console.log(`${what}: ${checks.count} passed`);
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

// A real user's first visit, then the interactions that must be safe, in one page:
// sign up -> dashboard -> create a message -> it is listed -> the message dialog is modal (and
// its actions show at 1280x800, 1440x900 and 390x844, light and dark) ->
// pausing disables Postpone -> a postpone that moves nothing says so -> delete asks first ->
// settings -> an access token made, listed and revoked (then refused by the API) -> another
// sign-in listed under Security, ended (then refused by the API) -> sign out ->
// sign in again -> it is still there (and after a reload, from the refresh cookie) ->
// sign-in redirects a signed-in user -> the theme survives a reload -> the drawer at 390 px.
import { join } from "node:path";
import { axeViolations, expect, openPage, takeNoise } from "./browser.mjs";

export async function checkSignedInFlow(browser, base, { check }, screenshots) {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  const shot = async (name) => {
    if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  };
  const visible = async (locator) => locator.first().waitFor({ state: "visible" });
  const focusedInside = (selector) => page.evaluate((s) => document.querySelector(s)?.contains(document.activeElement) ?? false, selector);
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

  const email = `e2e-${Date.now()}@example.com`;
  const password = "plum-kettle-orbit-47";
  const title = "For Charles, in a month";

  await check("sign up", async () => {
    await page.goto(`${base}/auth/signup`);
    await visible(page.getByRole("heading", { name: "Get yourself an account" }));
    await page.getByRole("button", { name: "Sign up" }).click();
    await visible(page.getByText("Please enter your email"));
    await shot("signup-validation");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByLabel("Confirm password").fill(password);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(`${base}/dashboard`);
    quiet("sign up");
  });

  await check("empty dashboard", async () => {
    await visible(page.getByText("Remaining messages: 1"));
    await visible(page.getByRole("link", { name: "add your name in the settings" }));
    await shot("dashboard-empty");
    await axe("the empty dashboard");
  });

  await check("the message dialog is modal", async () => {
    const add = page.getByRole("button", { name: "Add Message" });
    await add.click();
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    await visible(dialog);
    expect(await focusedInside("dialog"), "focus did not move into the dialog");
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      expect(await focusedInside("dialog"), `Tab ${i + 1} left the dialog`);
    }
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Shift+Tab");
      expect(await focusedInside("dialog"), `Shift+Tab ${i + 1} left the dialog`);
    }
    expect(await page.evaluate(() => document.getElementById("root")?.inert === true), "the page behind is not inert");
    const box = await dialog.locator("article").boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 800, `the dialog does not fit 1280x800: ${JSON.stringify(box)}`);
    await axe("the message dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await add.evaluate((el) => el === document.activeElement), "focus did not return to Add Message");
  });

  await check("create a message", async () => {
    await page.getByRole("button", { name: "Add Message" }).click();
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    await visible(dialog.getByText(/^The message will be delivered on .+\.$/));
    await dialog.getByLabel("Title").fill(title);
    await dialog.getByLabel("Recipient name").fill("Charles");
    await dialog.getByLabel("Recipient email").fill("charles@example.com");
    await dialog.getByLabel("Message").fill("Dear Charles,\nthe key is under the mat.");
    await dialog.getByLabel("Deliver after").selectOption("6M");
    await shot("message-dialog");
    await dialog.getByRole("button", { name: "Create" }).click();
    await dialog.waitFor({ state: "detached" });
    await visible(page.getByRole("cell", { name: title, exact: true }));
    await visible(page.getByText("Remaining messages: 0"));
    expect(await page.getByRole("button", { name: "Add Message" }).isDisabled(), "Add Message stays enabled on the free plan with one message");
    await shot("dashboard");
    await axe("the dashboard with a message");
    quiet("create a message");
  });

  await check("the message dialog's actions show at every size, in both themes", async () => {
    // The tallest dialog: the Update dialog with its preview open.
    const hittable = (locator) =>
      locator.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return at !== null && (at === el || el.contains(at));
      });
    for (const [width, height] of [[1280, 800], [1440, 900], [390, 844]]) {
      await page.setViewportSize({ width, height });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.getByRole("button", { name: "Edit", exact: true }).first().click();
        const dialog = page.getByRole("dialog", { name: "Update Message" });
        await dialog.getByRole("button", { name: "Preview" }).click();
        await visible(dialog.locator(".email-preview"));
        for (const name of ["Update", "Delete", "Close"]) {
          expect(await hittable(dialog.getByRole("button", { name, exact: true })), `${name} is out of sight at ${width}x${height} (${scheme})`);
        }
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached" });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    quiet("the message dialog at every size");
  });

  await check("a paused message cannot be postponed, and says why", async () => {
    await page.getByRole("switch", { name: `Active: ${title}` }).click();
    await visible(page.getByRole("cell", { name: "Paused" }));
    const postpone = page.getByRole("button", { name: "Postpone" });
    expect(await postpone.isDisabled(), "Postpone is enabled on a paused message");
    expect((await postpone.getAttribute("aria-describedby")) !== null, "no reason is given");
    await visible(page.getByText("Paused: switch it on to postpone"));
    await page.getByRole("switch", { name: `Active: ${title}` }).click();
    await visible(page.getByRole("cell", { name: "Scheduled" }));
    await visible(page.getByText(/^Postponing today would not move the date: it is already .+\.$/));
  });

  await check("a postpone that moves nothing says so", async () => {
    // Made today: a postpone would move nothing, so the button is disabled with the reason.
    const postpone = page.getByRole("button", { name: "Postpone" });
    expect(await postpone.isDisabled(), "Postpone is enabled on a message made today");
    const reason = await postpone.getAttribute("aria-describedby");
    expect(reason !== null, "no reason is given");
    const said = await page.locator(`[id="${reason}"]`).textContent();
    expect(/^Postponing today would not move the date: it is already .+\.$/.test(said ?? ""), `the reason says ${said}`);
  });

  await check("delete asks for confirmation", async () => {
    await page.getByRole("button", { name: "Edit" }).click();
    const dialog = page.getByRole("dialog", { name: "Update Message" });
    await dialog.getByRole("button", { name: "Delete" }).click();
    await visible(dialog.getByText("Delete this message? It will not be delivered, and this cannot be undone."));
    await dialog.getByRole("button", { name: "Keep it" }).click();
    await visible(dialog.getByRole("button", { name: "Update" }));
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await visible(page.getByRole("cell", { name: title, exact: true }));
    quiet("delete asks first");
  });

  await check("settings", async () => {
    await page.goto(`${base}/settings/general`);
    await visible(page.getByRole("heading", { name: "Settings" }));
    await axe("the settings");
    quiet("settings");
  });

  await check("an access token is made, listed and revoked", async () => {
    await page.goto(`${base}/settings/security`);
    const tokens = page.getByRole("region", { name: "Access tokens" });
    await visible(tokens.getByText("You have no access tokens."));
    await tokens.getByLabel("Token name").fill("e2e script");
    await tokens.getByRole("button", { name: "Create token" }).click();
    const field = tokens.getByLabel("Your token “e2e script”");
    await visible(field);
    const secret = await field.inputValue();
    expect(secret.startsWith("sl_pat_"), `the new token starts "${secret.slice(0, 7)}" (${secret.length} characters)`);
    await visible(tokens.getByText("Copy your new token now: it will not be shown again."));
    const item = tokens.getByRole("listitem").filter({ hasText: "e2e script" });
    await visible(item.getByText(/Never used/));
    await shot("settings-token");
    await axe("the settings with a new token");
    const me = (headers) => fetch(`${base}/api/me`, { headers });
    const before = await me({ Authorization: `Bearer ${secret}` });
    expect(before.status === 200, `the new token answers ${before.status}`);

    await item.getByRole("button", { name: "Revoke e2e script" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke “e2e script”?" });
    await visible(dialog);
    expect(await focusedInside("dialog"), "focus did not move into the confirmation");
    await axe("the revoke confirmation");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await item.getByRole("button", { name: "Revoke e2e script" }).click();
    await dialog.getByRole("button", { name: "Revoke token" }).click();
    await visible(tokens.getByRole("status").getByText("The token “e2e script” is revoked and no longer works."));
    expect((await item.count()) === 0, "the revoked token is still listed");

    const after = await me({ Authorization: `Bearer ${secret}` });
    const body = await after.json();
    expect(after.status === 401 && body.code === "auth/invalid-user-token", `the revoked token answers ${after.status} ${JSON.stringify(body)}`);
    quiet("access tokens");
  });

  await check("another sign-in is listed, ended, and its next request refused", async () => {
    // Another device signs in: a script with a Chrome on Windows user agent, through the API.
    const signin = await fetch(`${base}/api/auth/signin`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      },
      body: JSON.stringify({ email, password }),
    });
    const other = (await signin.json()).data;
    expect(signin.status === 200 && other?.idToken, `the other sign-in answered ${signin.status}`);
    const me = () => fetch(`${base}/api/me`, { headers: { Authorization: `Bearer ${other.idToken}` } });
    expect((await me()).status === 200, "the other sign-in does not work before it is ended");

    await page.goto(`${base}/settings/security`);
    const sessions = page.getByRole("region", { name: "Where you are signed in" });
    await visible(sessions.getByText("This browser"));
    const item = sessions.getByRole("listitem").filter({ hasText: "Chrome on Windows" });
    await visible(item);
    await shot("settings-security");
    await axe("where you are signed in");
    await item.getByRole("button", { name: /^End the sign-in on Chrome on Windows/ }).click();
    const dialog = page.getByRole("dialog", { name: "End the sign-in on Chrome on Windows?" });
    await visible(dialog);
    expect(await focusedInside("dialog"), "focus did not move into the confirmation");
    await axe("the end-a-sign-in confirmation");
    // The sign-up may be more than 5 minutes old on a slow machine: then the password again.
    page.expected = [/status of 401/, /HTTP 401 DELETE .*\/api\/me\/sessions\//];
    await dialog.getByRole("button", { name: "End sign-in" }).click();
    const reauth = page.getByRole("dialog", { name: "Please sign in again to complete this action" });
    const ended = sessions.getByRole("status").getByText("The sign-in on Chrome on Windows has ended.");
    await Promise.race([visible(reauth), visible(ended)]);
    if (await reauth.isVisible()) {
      await reauth.getByLabel("Password").fill(password);
      await reauth.getByRole("button", { name: "Sign in", exact: true }).click();
    }
    await visible(ended);
    page.expected = [];
    expect((await item.count()) === 0, "the ended sign-in is still listed");

    const after = await me();
    const body = await after.json();
    expect(after.status === 401 && body.code === "auth/invalid-user-token", `the ended sign-in answers ${after.status} ${JSON.stringify(body)}`);
    await axe("where you are signed in, after ending one");
    quiet("where you are signed in");
  });

  await check("sign out", async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByText("Account", { exact: true }).click();
    await page.getByRole("button", { name: "Sign out" }).first().click();
    await page.waitForURL(`${base}/`);
    await visible(page.getByRole("link", { name: "Sign in" }));
  });

  await check("sign in again", async () => {
    await page.goto(`${base}/dashboard`);
    await page.waitForURL(`${base}/auth/signin`);
    await visible(page.getByRole("heading", { name: "Welcome back" }));
    await shot("signin");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not-the-password-1");
    page.expected = [/status of 401/, /HTTP 401 POST .*\/api\/auth\/signin/];
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await visible(page.getByRole("alert").getByText("The email or password is incorrect."));
    page.expected = [];
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${base}/dashboard`);
    await visible(page.getByRole("cell", { name: title, exact: true }));
  });

  await check("reload", async () => {
    await page.reload();
    await visible(page.getByRole("cell", { name: title, exact: true }));
    quiet("sign in and reload");
  });

  await check("a signed-in user is sent on from sign in", async () => {
    await page.goto(`${base}/auth/signin`);
    await page.waitForURL(`${base}/dashboard`);
    await page.goto(`${base}/auth/signin?next=/settings/password`);
    await page.waitForURL(`${base}/settings/password`);
    await visible(page.getByRole("heading", { name: "Settings" }));
  });

  await check("the theme survives a reload", async () => {
    await page.goto(`${base}/`);
    const before = await page.evaluate(() => document.documentElement.dataset.theme);
    await page.getByRole("button", { name: /Switch to (dark|light) theme/ }).click();
    const chosen = await page.evaluate(() => document.documentElement.dataset.theme);
    expect(chosen !== before, "the toggle did not change the theme");
    await page.reload();
    await visible(page.getByRole("heading", { level: 1 }));
    expect((await page.evaluate(() => document.documentElement.dataset.theme)) === chosen, "the theme was lost on reload");
    await page.getByRole("button", { name: /Switch to (dark|light) theme/ }).click();
  });

  await check("the drawer at 390 px", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/pricing`);
    const open = page.getByRole("button", { name: "Open menu" });
    await open.click();
    const drawer = page.getByRole("dialog", { name: "Menu" });
    await visible(drawer);
    const box = await drawer.locator("article").boundingBox();
    expect(box && Math.round(box.width) === 250 && Math.round(box.x + box.width) === 390, `drawer box ${JSON.stringify(box)}`);
    for (const name of ["Pricing", "FAQ", "About", "Dashboard", "Settings"]) await visible(drawer.getByRole("link", { name }));
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press("Tab");
      expect(await focusedInside("dialog.drawer"), `Tab ${i + 1} left the drawer`);
    }
    await axe("the drawer");
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "detached" });
    expect(await open.evaluate((el) => el === document.activeElement), "focus did not return to the menu button");
    await open.click();
    await drawer.getByRole("link", { name: "FAQ" }).click();
    await page.waitForURL(`${base}/faq`);
    expect((await drawer.count()) === 0, "the drawer stays open after following a link");
    quiet("the drawer");
  });

  await context.close();
}

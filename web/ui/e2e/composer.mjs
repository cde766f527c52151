// The composer (issue 29 item 1), as a writer meets it, in a context of its own: write, the
// draft autosaved (on this device and on the server), the tab reloaded and the draft back,
// another device (this one's storage cleared) getting it from the server, Escape asking before
// leaving a changed draft and keeping it, Ctrl+S saving; the writing area near full-screen with
// its primary action in sight at 1280x800, 1440x900 and 390x844 in both themes; axe clean.
//   node web/ui/e2e/composer.mjs <server url>
// `go test ./cmd/sendlater -run ComposerInABrowser` builds the binary, starts it and runs this.
import { axeViolations, checker, expect, launch, openPage, report, signUp, takeNoise } from "./browser.mjs";

const base = process.argv[2];
if (!base) {
  console.error("usage: node composer.mjs <server url>");
  process.exit(2);
}
const checks = checker();
const browser = await launch();
try {
  await checkComposer(browser, base, checks);
} finally {
  await browser.close();
}
report(checks, "composer checks");

async function checkComposer(browser, base, { check }) {
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
  const hittable = (locator) =>
    locator.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return r.width > 0 && at !== null && (at === el || el.contains(at));
    });
  const drafts = () => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("sendlater:draft:")));
  const openCreate = async () => {
    await page.getByRole("button", { name: "Add Message" }).click();
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    await visible(dialog);
    return dialog;
  };

  const email = `composer-${Date.now()}@example.com`;
  const password = "plum-kettle-orbit-47";
  const letter = "Dear Dora,\n\nthe garden is yours now. Water the roses on Sundays.\n\nLove, Ada";

  await check("composer: sign up", async () => {
    await signUp(page, base, email, password);
    await visible(page.getByText("Remaining messages: 1"));
  });

  await check("composer: write, the draft is saved here and on the server", async () => {
    const dialog = await openCreate();
    await dialog.getByLabel("Title").fill("For Dora");
    await dialog.getByLabel("Recipient name").fill("Dora");
    await dialog.getByLabel("Recipient email").fill("dora@example.com");
    const saved = page.waitForResponse((r) => r.url().endsWith("/api/drafts/new") && r.request().method() === "PUT" && r.status() === 200);
    await dialog.getByLabel("Message").fill(letter);
    await visible(dialog.getByText("14 words"));
    expect((await drafts()).length === 1, `drafts on this device: ${await drafts()}`);
    await saved;
    await visible(dialog.getByText("Draft saved", { exact: true }));
    quiet("writing");
  });

  await check("composer: reloaded, the draft is back", async () => {
    await page.reload();
    await visible(page.getByText("Remaining messages: 1"));
    const dialog = await openCreate();
    await visible(dialog.getByText(/^Your unsaved draft from .+ is back\.$/));
    expect((await dialog.getByLabel("Message").inputValue()) === letter, "the letter did not come back");
    expect((await dialog.getByLabel("Recipient email").inputValue()) === "dora@example.com", "the recipient did not come back");
    await axe("the composer with a draft back");
    quiet("reload");
  });

  await check("composer: on another device (nothing stored here) the server's draft is back", async () => {
    await page.evaluate(() => {
      for (const k of Object.keys(localStorage)) if (k.startsWith("sendlater:draft:")) localStorage.removeItem(k);
    });
    await page.reload();
    await visible(page.getByText("Remaining messages: 1"));
    const dialog = await openCreate();
    await visible(dialog.getByText(/^Your unsaved draft from .+ is back\.$/));
    expect((await dialog.getByLabel("Message").inputValue()) === letter, "the server's letter did not come back");
    expect((await dialog.getByLabel("Title").inputValue()) === "For Dora", "the server's title did not come back");
    quiet("another device");
  });

  await check("composer: near full-screen, the primary action in sight at every size and theme", async () => {
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    // A long letter: the writing area and the form scroll, the footer stays.
    await dialog.getByLabel("Message").fill(`${letter}\n\n${"A line of the long letter, for the scroll.\n".repeat(80)}`);
    for (const [width, height] of [[1280, 800], [1440, 900], [390, 844]]) {
      await page.setViewportSize({ width, height });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        const box = await dialog.locator("article").first().boundingBox();
        const wide = width < 600 ? box.width >= width - 1 && box.height >= height - 1 : box.width >= width * 0.9 && box.height >= height * 0.9;
        expect(wide, `the composer is ${Math.round(box.width)}x${Math.round(box.height)} at ${width}x${height}`);
        for (const name of ["Create", "Close"]) {
          expect(await hittable(dialog.getByRole("button", { name, exact: true })), `${name} is out of sight at ${width}x${height} (${scheme})`);
        }
        const area = await dialog.getByLabel("Message").evaluate((el) => {
          const s = getComputedStyle(el);
          const probe = document.createElement("span");
          // The average letter of prose, spaces and punctuation included.
          const prose = "the garden is yours now. Water the roses on Sundays, and keep the cat away. ";
          probe.textContent = prose;
          probe.style.font = s.font;
          probe.style.position = "absolute";
          probe.style.whiteSpace = "pre";
          document.body.append(probe);
          const ch = probe.getBoundingClientRect().width / prose.length;
          probe.remove();
          return { lineHeight: parseFloat(s.lineHeight) / parseFloat(s.fontSize), measure: (el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)) / ch, height: el.clientHeight };
        });
        expect(area.lineHeight >= 1.5 && area.lineHeight <= 1.7, `line height ${area.lineHeight}`);
        expect(area.measure <= 78 && area.measure >= (width < 600 ? 30 : 62), `a measure of ${Math.round(area.measure)} characters at ${width}`);
        expect(area.height >= 250, `a writing area ${area.height}px high at ${width}x${height}`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    await dialog.getByLabel("Message").fill(letter);
  });

  await check("composer: Escape asks before leaving a changed draft, and keeps it", async () => {
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    await dialog.getByLabel("Message").press("End");
    await page.keyboard.type(" P.S. the key is under the mat.");
    await page.keyboard.press("Escape");
    const question = dialog.getByRole("group", { name: /^Leave this message\? Your draft is kept/ });
    await visible(question);
    expect(await question.getByRole("button", { name: "Keep writing" }).evaluate((el) => el === document.activeElement), "Keep writing is not focused");
    await axe("the leave question");
    await question.getByRole("button", { name: "Keep writing" }).click();
    await visible(dialog.getByRole("button", { name: "Create" }));
    await page.keyboard.press("Escape");
    await dialog.getByRole("button", { name: "Leave" }).click();
    await dialog.waitFor({ state: "detached" });
    const again = await openCreate();
    expect((await again.getByLabel("Message").inputValue()).endsWith("P.S. the key is under the mat."), "the draft was not kept");
    quiet("Escape");
  });

  await check("composer: Ctrl+S saves, and no draft is left", async () => {
    const dialog = page.getByRole("dialog", { name: "Create Message" });
    const gone = page.waitForResponse((r) => r.url().endsWith("/api/drafts/new") && r.request().method() === "DELETE");
    await dialog.getByLabel("Title").press("Control+s");
    await dialog.waitFor({ state: "detached" });
    await visible(page.getByRole("cell", { name: "For Dora", exact: true }));
    await gone;
    expect((await drafts()).length === 0, `drafts left on this device: ${await drafts()}`);
    await page.reload();
    await page.getByRole("button", { name: "Edit", exact: true }).first().click();
    const edit = page.getByRole("dialog", { name: "Update Message" });
    await visible(edit.getByRole("button", { name: "Update" }));
    expect((await edit.getByText(/Your unsaved draft/).count()) === 0, "a saved message offers a draft back");
    await page.keyboard.press("Escape");
    await edit.waitFor({ state: "detached" });
    quiet("Ctrl+S");
  });

  await context.close();
}

// Sealed messages (issue 32), in a browser, against a running server:
//   node web/ui/e2e/sealed.mjs <server url> seal <email> <password>
//   node web/ui/e2e/sealed.mjs <server url> open <link>
// seal: sign in, write a letter and seal it (a weak passphrase refused with the reason, a hint
// holding the passphrase refused), preview it (the email says sealed, the letter shows here),
// create it; every request body the page sent is searched for the passphrase and the letter.
// open: in a fresh context, the recipient's link: a wrong passphrase refused without a request,
// the right one shows the letter; axe clean on the page locked and open, light and dark.
// `go test ./cmd/sendlater -run SealedInABrowser` runs seal, delivers with `messages
// deliver-now`, takes the link from the email the SMTP server received, and runs open.
import { axeViolations, checker, expect, launch, openPage, report, takeNoise, signIn } from "./browser.mjs";

const [base, phase, ...args] = process.argv.slice(2);
if (!base || !["seal", "open"].includes(phase)) {
  console.error("usage: node sealed.mjs <server url> seal <email> <password> | open <link>");
  process.exit(2);
}
const letter = "Dear Ann,\n\nthe deeds are in the blue box, second shelf: ZEBRA-ORCHID-7731.\n\nAda";
const passphrase = "violet harbor quietly mends seven copper lanterns";
const hint = "the walk we took in Lisbon";

const checks = checker();
const { check } = checks;
const browser = await launch();
const visible = (locator) => locator.first().waitFor({ state: "visible" });
try {
  const context = await browser.newContext({ reducedMotion: "reduce" });
  const page = await openPage(context);
  // Every request body the page sends, for the search at the end.
  const bodies = [];
  page.on("request", (r) => {
    const body = r.postData();
    bodies.push(`${r.method()} ${r.url()} ${body ?? ""}`);
  });
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
  const nothingSent = (what) => {
    for (const secret of [passphrase, "ZEBRA-ORCHID", "blue box", "copper lanterns"]) {
      const found = bodies.find((b) => b.includes(secret) || b.includes(encodeURIComponent(secret)));
      expect(found === undefined, `${what}: a request carried "${secret}": ${found?.slice(0, 200)}`);
    }
  };

  if (phase === "seal") {
    const [email, password] = args;
    await check("seal: sign in", async () => {
      await signIn(page, base, email, password);
    });

    await check("seal: a weak passphrase and a telling hint are refused", async () => {
      await page.getByRole("button", { name: "Add Message" }).click();
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await visible(dialog);
      await dialog.getByLabel("Title").fill("For Ann");
      await dialog.getByLabel("Recipient name").fill("Ann");
      await dialog.getByLabel("Recipient email").fill("ann@example.com");
      await dialog.getByRole("switch", { name: "Seal with a passphrase" }).check();
      await visible(dialog.getByText("cannot recover it"));
      await dialog.getByLabel("Message", { exact: true }).fill(letter);
      await dialog.getByLabel("Passphrase", { exact: true }).fill("correct horse battery staple");
      await dialog.getByLabel("Passphrase again").fill("correct horse battery staple");
      await dialog.getByRole("button", { name: "Create" }).click();
      await visible(dialog.getByText(/too easy to guess \(about \d+ bits of the 60 needed\)/));
      await dialog.getByLabel("Passphrase", { exact: true }).fill(passphrase);
      await dialog.getByLabel("Passphrase again").fill(passphrase);
      await visible(dialog.getByText(/Strong enough: about \d+ bits/));
      await dialog.getByLabel("Hint for the recipients (optional)").fill(`it is ${passphrase}`);
      await dialog.getByRole("button", { name: "Create" }).click();
      await visible(dialog.getByText("The hint contains the passphrase"));
      await dialog.getByLabel("Hint for the recipients (optional)").fill(hint);
      await axe("the dialog sealing a letter");
      quiet("refusals");
    });

    await check("seal: the preview says sealed and shows the letter here", async () => {
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await dialog.getByRole("button", { name: "Preview" }).click();
      const preview = dialog.getByRole("region", { name: "Preview" });
      await visible(preview.getByText("Opened with the passphrase"));
      const text = await preview.innerText();
      expect(text.includes("A sealed message from") && text.includes(`Their hint: ${hint}`) && text.includes("/open/"),
        `the preview: ${text.slice(0, 400)}`);
      expect(text.includes("ZEBRA-ORCHID-7731"), "the letter is not shown opened");
    });

    await check("seal: create; the list marks it sealed", async () => {
      const dialog = page.getByRole("dialog", { name: "Create Message" });
      await dialog.getByRole("button", { name: "Create" }).click();
      await dialog.waitFor({ state: "detached", timeout: 30000 });
      const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: /For Ann/ }) });
      await visible(row.getByText("(sealed)"));
      quiet("create");
    });

    await check("seal: editing asks for the passphrase, then reseals", async () => {
      await page.getByRole("button", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: "Update Message" });
      await visible(dialog.getByText("This message is sealed."));
      await dialog.getByLabel("Passphrase of the sealed letter").fill("violet harbor quietly mends six copper lanterns");
      await dialog.getByRole("button", { name: "Open the letter" }).click();
      await visible(dialog.getByText("This passphrase does not open the letter."));
      await dialog.getByLabel("Passphrase of the sealed letter").fill(passphrase);
      await dialog.getByRole("button", { name: "Open the letter" }).click();
      // The locked letter's group names "message" too: wait for it to go, then read the letter.
      await dialog.getByText("This message is sealed.").waitFor({ state: "detached", timeout: 30000 });
      const area = dialog.getByLabel("Message", { exact: true });
      await visible(area);
      expect((await area.inputValue()) === letter, `the opened letter: ${await area.inputValue()}`);
      const saved = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/api/messages/"));
      await dialog.getByRole("button", { name: "Update" }).click();
      const reply = await (await saved).json();
      expect(reply.data?.sealed?.envelope?.startsWith("sealed:v1$") && reply.data.message === "", `the edit's reply: ${JSON.stringify(reply).slice(0, 300)}`);
      await dialog.waitFor({ state: "detached", timeout: 30000 });
      quiet("edit");
    });
    nothingSent("seal");
  } else {
    const [link] = args;
    await check("open: the link shows the hint and asks for the passphrase", async () => {
      await page.goto(link);
      await visible(page.getByRole("heading", { name: "A sealed message for Ann" }));
      await visible(page.getByText(hint));
      await axe("the open page, locked");
    });

    await check("open: a wrong passphrase is refused in the browser", async () => {
      const before = bodies.length;
      await page.getByLabel("Passphrase").fill("violet harbor quietly mends six copper lanterns");
      await page.getByRole("button", { name: "Open the message" }).click();
      await visible(page.getByRole("alert").filter({ hasText: "This passphrase does not open the message." }));
      const sent = bodies.slice(before).filter((b) => b.includes("/api/"));
      expect(sent.length === 0, `requests for a wrong passphrase: ${sent}`);
      await axe("the open page, a wrong passphrase");
    });

    await check("open: the right passphrase shows the letter", async () => {
      await page.getByLabel("Passphrase").fill(passphrase);
      await page.getByRole("button", { name: "Open the message" }).click();
      await visible(page.getByText("ZEBRA-ORCHID-7731"));
      const shown = await page.locator(".sealed-letter").innerText();
      expect(shown.trim() === letter.trim(), `the letter shown: ${shown}`);
      await visible(page.getByRole("button", { name: "Download as text" }));
      await axe("the open page, open");
      quiet("open");
    });
    nothingSent("open");
  }
} finally {
  await browser.close();
}
report(checks, `sealed ${phase} checks`);

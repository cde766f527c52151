import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { newSealedId, sealErrors, weakPassphrase } from "./seal-fields";

// The checks the TUI makes too (tui/seal.go), in the same words: one file, read by both suites.
type Check = { name: string; passphrase: string; again: string; hint: string; errors: Record<string, string> };
const checks: { cases: Check[] } = JSON.parse(readFileSync(resolve(__dirname, "../../../../../../testdata/sealed/checks.json"), "utf8"));

const strong = "violet harbor quietly mends seven copper lanterns";

describe("the seal's checks before sealing", () => {
  it("says what the TUI says (testdata/sealed/checks.json)", () => {
    expect(checks.cases.length).toBeGreaterThanOrEqual(8);
    for (const c of checks.cases) {
      const errors = sealErrors({ seal: "on", passphrase: c.passphrase, passphraseConfirm: c.again, "sealed.hint": c.hint });
      const defined = Object.fromEntries(Object.entries(errors).filter(([, v]) => v !== undefined));
      expect([c.name, defined]).toEqual([c.name, c.errors]);
    }
  });

  it("checks nothing while the seal is off", () => {
    expect(sealErrors({ seal: "", passphrase: "x" })).toEqual({});
  });

  it("refuses a weak passphrase with its estimate and what to do", () => {
    expect(weakPassphrase("correct horse battery staple")).toBe(
      "This passphrase is too easy to guess (about 47 bits of the 60 needed): use six or more random words, or add more words, digits and symbols",
    );
    expect(weakPassphrase("correct horse battery staple orbit lantern")).toBeUndefined();
    expect(sealErrors({ seal: "on", passphrase: "", passphraseConfirm: "" }).passphrase).toBe("Please enter a passphrase");
  });

  it("needs the passphrase twice, alike", () => {
    const errors = sealErrors({ seal: "on", passphrase: strong, passphraseConfirm: strong + " ", "sealed.hint": "" });
    expect(errors.passphrase).toBeUndefined();
    expect(errors.passphraseConfirm).toBe("The two passphrases differ");
  });

  it("refuses a hint that gives the passphrase away, in any case", () => {
    const errors = sealErrors({ seal: "on", passphrase: strong, passphraseConfirm: strong, "sealed.hint": `It is ${strong.toUpperCase()}!` });
    expect(errors["sealed.hint"]).toMatch(/^The hint contains the passphrase/);
    expect(sealErrors({ seal: "on", passphrase: strong, passphraseConfirm: strong, "sealed.hint": "Lisbon" })["sealed.hint"]).toBeUndefined();
  });

  it("makes ids of the server's shape, each new", () => {
    const a = newSealedId();
    expect(a).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(newSealedId()).not.toBe(a);
  });
});

import { describe, expect, it } from "vitest";
import { hasHiddenCharacters } from "./text-rule";

// The same cases as core's TestTheTextRuleOfNamesAndTitles.
describe("hasHiddenCharacters", () => {
  it.each([
    "Ada Lovelace",
    "Анна Ω 李 أحمد",
    "Zoë\u00a0Brontë",
    "Love \u2764\ufe0f",
    "Dev \u{1f469}\u200d\u{1f4bb}",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "\u0915\u094d\u200d\u0937",
  ])("passes %j", (s) => expect(hasHiddenCharacters(s)).toBe(false));

  it.each([
    "ci\x00token",
    "a\tb",
    "Cy\x1b[31m",
    "a\u0085b",
    "a\x7fb",
    "Invoice \u202egpj.exe",
    "a\u202ab",
    "Ann\u2066",
    "Ann\u2069",
    "a\u200eb",
    "a\u200fb",
    "a\u061cb",
    "\ufeffTitle",
    "Ad\u200ba",
    "Ada\u00adLovelace",
    "a\u180eb",
    "a\u2060b",
    "a\u2062b",
    "a\u2064b",
    "flag\u{e0067}\u{e0062}",
    "a\ufff9b",
    "\u3164",
    "a\uffa0b",
    "a\u034fb",
    "\u200dAda",
    "Ada\u200d",
    "Ada \u200dL",
    "a\u200c\u200cb",
    "\u200d",
    "a\u200d\u200bb",
  ])("refuses %j", (s) => expect(hasHiddenCharacters(s)).toBe(true));
});

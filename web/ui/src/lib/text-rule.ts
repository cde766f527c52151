/**
 * The server's rule of every name and title (core/text.go): no control
 * character, no format character (bidirectional controls, zero width space,
 * soft hyphen, byte order mark, tag characters...), no other default-ignorable
 * character (Hangul fillers...), and the joiners ZWNJ (U+200C) and ZWJ
 * (U+200D) only between two visible characters, where Persian, the Indic
 * scripts and emoji sequences need them. Variation selectors pass.
 */
const hidden = /[\p{Cc}\p{Cf}]|(?!\p{Variation_Selector})\p{Default_Ignorable_Code_Point}/u;
const visible = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const joiners = new Set(["\u200c", "\u200d"]);

function isVisible(c: string | undefined) {
  return c !== undefined && !joiners.has(c) && !hidden.test(c) && visible.test(c);
}

/** Whether s breaks the rule's characters (core.hasHiddenChars). */
export function hasHiddenCharacters(s: string): boolean {
  const cs = [...s];
  return cs.some((c, i) => (joiners.has(c) ? !isVisible(cs[i - 1]) || !isVisible(cs[i + 1]) : hidden.test(c)));
}

/** The rule's words after the field's name, as the server says them. */
export const hiddenCharactersRule = "may not contain control, invisible or direction-changing characters";

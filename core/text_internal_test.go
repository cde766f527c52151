package core

import "testing"

// The one rule of names and titles (text.go), character by character.
func TestTheTextRuleOfNamesAndTitles(t *testing.T) {
	const refused = "The name may not contain control, invisible or direction-changing characters"
	for _, tc := range []struct {
		name, s, want string
	}{
		{"plain", "Ada Lovelace", ""},
		{"other scripts", "Анна Ω 李 أحمد", ""},
		{"accents, no-break space", "Zoë\u00a0Brontë", ""},
		{"emoji with a variation selector", "Love \u2764\ufe0f", ""},
		{"emoji ZWJ sequence", "Dev \U0001f469\u200d\U0001f4bb", ""},
		{"ZWNJ inside a Persian word", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", ""},
		{"ZWJ in Devanagari", "\u0915\u094d\u200d\u0937", ""},
		{"NUL", "ci\x00token", refused},
		{"tab", "a\tb", refused},
		{"escape", "Cy\x1b[31m", refused},
		{"C1 control", "a\u0085b", refused},
		{"DEL", "a\x7fb", refused},
		{"RLO", "Invoice \u202egpj.exe", refused},
		{"LRE", "a\u202ab", refused},
		{"isolate", "Ann\u2066", refused},
		{"pop isolate", "Ann\u2069", refused},
		{"LRM", "a\u200eb", refused},
		{"RLM", "a\u200fb", refused},
		{"Arabic letter mark", "a\u061cb", refused},
		{"BOM", "\ufeffTitle", refused},
		{"zero width space", "Ad\u200ba", refused},
		{"soft hyphen", "Ada\u00adLovelace", refused},
		{"Mongolian vowel separator", "a\u180eb", refused},
		{"word joiner", "a\u2060b", refused},
		{"invisible times", "a\u2062b", refused},
		{"invisible plus", "a\u2064b", refused},
		{"tag characters", "flag\U000e0067\U000e0062", refused},
		{"interlinear annotation", "a\ufff9b", refused},
		{"Hangul filler", "\u3164", refused},
		{"halfwidth Hangul filler", "a\uffa0b", refused},
		{"combining grapheme joiner", "a\u034fb", refused},
		{"ZWJ at the start", "\u200dAda", refused},
		{"ZWJ at the end", "Ada\u200d", refused},
		{"ZWJ beside a space", "Ada \u200dL", refused},
		{"ZWNJ doubled", "a\u200c\u200cb", refused},
		{"ZWJ alone", "\u200d", refused},
		{"ZWJ beside a hidden character", "a\u200d\u200bb", refused},
		{"line feed", "a\nb", "The name must be on one line"},
		{"line separator", "a\u2028b", "The name must be on one line"},
	} {
		if got := lineProblem(tc.s, "The name", 200); got != tc.want {
			t.Errorf("%s %+q: %q, want %q", tc.name, tc.s, got, tc.want)
		}
	}
}

// Bodies are not names: only NUL is refused there.
func TestTheTextRuleOfBodies(t *testing.T) {
	for _, s := range []string{"Dear Ada,\n\tthe engine works.\r\n\u200b\ufeff", "\u202eany text"} {
		if p := bodyProblem(s, "The message"); p != "" {
			t.Errorf("body %+q: %q", s, p)
		}
	}
	if p := bodyProblem("a\x00b", "The message"); p != "The message may not contain NUL characters" {
		t.Errorf("body with NUL: %q", p)
	}
}

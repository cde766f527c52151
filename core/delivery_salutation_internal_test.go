package core

import (
	"os"
	"strings"
	"testing"
)

// The web app's message dialog says what the email adds by the same rule
// (web/ui/src/features/dashboard/components/salutation.ts): the same
// greeting words.
func TestSalutationWordsMatchTheWebApp(t *testing.T) {
	b, err := os.ReadFile("../web/ui/src/features/dashboard/components/salutation.ts")
	if err != nil {
		t.Fatal(err)
	}
	ts := string(b)
	words := strings.Count(ts[strings.Index(ts, "new Set(["):strings.Index(ts, "]);")], `"`) / 2
	if words != len(greetingWords) {
		t.Errorf("salutation.ts has %d greeting words, core %d", words, len(greetingWords))
	}
	for w := range greetingWords {
		if !strings.Contains(ts, `"`+w+`"`) {
			t.Errorf("salutation.ts lacks the greeting word %q", w)
		}
	}
}

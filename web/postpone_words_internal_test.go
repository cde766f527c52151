package web

import (
	"os"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// The web app says of a postpone what core says (the TUI and the CLI call
// core): the same words, the date in between.
func TestPostponeWordsMatchCore(t *testing.T) {
	b, err := os.ReadFile("ui/src/lib/postpone-words.ts")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`" + core.PostponeNoEffect("${date}") + "`", "`" + core.PostponedTo("${date}") + "`"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("postpone-words.ts does not say %s", want)
		}
	}
}

package tui_test

import (
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A bouncing recipient shows on the list and first in the history, with
// its fix, on each implementation (the local store and over the API).
func TestBouncingRecipientShows(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, m := proAnn(t)
			if err := e.DB.RecordBounce(e.Ctx, m.ID, func(m *core.Message) (*core.BounceWrite, error) {
				return &core.BounceWrite{Address: m.RecipientList()[1].Address,
					Hard: &core.RecipientBounce{At: e.Clock.Now(), Email: core.BounceNotice, Status: "5.1.1", Reason: "550 5.1.1 User unknown"}}, nil
			}); err != nil {
				t.Fatal(err)
			}
			d, s := listOf(t, b, e, ann)
			if !strings.Contains(s, "and 2 more ! 1 bouncing") {
				t.Fatalf("the list:\n%s", s)
			}
			d.press("l")
			s = d.waitFor("Fix: press e")
			for _, want := range []string{"! carol@example.com returned the notice: 550 5.1.1 User unknown", "Fix: press e and change the address"} {
				if !strings.Contains(s, want) {
					t.Fatalf("no %q in the history:\n%s", want, s)
				}
			}
		})
	}
}

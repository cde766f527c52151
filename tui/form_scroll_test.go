package tui_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/tui"
)

// The form of a message with 1 to 10 recipients fits any terminal from
// 80x24 down: it scrolls so that the field in focus is on screen, says
// when there is more above or below, and every field, the delivery date
// under the last, can be reached and seen.

// recipientsMessage is a message of n recipients, "Recipient 1" to
// "Recipient n".
func recipientsMessage(n int) core.MessageInput {
	in := core.MessageInput{Title: fmt.Sprintf("A note for %d", n), Body: "The vault's code is in the green book.", Interval: core.Interval6M}
	for i := 1; i <= n; i++ {
		in.Recipients = append(in.Recipients, core.RecipientInput{Name: fmt.Sprintf("Recipient %d", i), Address: fmt.Sprintf("r%d@example.com", i)})
	}
	if n == 1 {
		in.Name, in.Recipient, in.Recipients = in.Recipients[0].Name, in.Recipients[0].Address, nil
	}
	return in
}

// openForm shows the list at width x height and opens the form of its
// only message.
func openForm(t *testing.T, cfg tui.Config, width, height, n int) *driver {
	t.Helper()
	d := drive(t, cfg, width, height)
	d.waitFor(fmt.Sprintf("A note for %d", n))
	d.press("e")
	d.waitFor("Update Message")
	return d
}

func TestGoldenFormWithRecipients(t *testing.T) {
	for _, n := range []int{1, 4, 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e := testenv.New(t, testenv.Config{})
			ada := e.MustUser(t, "ada@example.com", "Europe/London", core.PlanPro)
			if _, err := e.Messages.Create(e.As(ada.ID), recipientsMessage(n)); err != nil {
				t.Fatal(err)
			}
			cfg := tui.Config{Messages: e.Messages, Account: e.Auth, Emails: e.Emails, Where: "local store", Now: e.Clock.Now,
				Ctx: e.Acting(&core.Identity{UserID: ada.ID, Operator: "golden"}), DraftPath: filepath.Join(t.TempDir(), "draft.json")}
			d := openForm(t, cfg, 80, 24, n)
			d.waitFor("Recipient 1")
			d.golden(fmt.Sprintf("form-%d-recipients-80x24", n))
			for range 2 + 2*n { // to the message, the last field
				d.press("tab")
			}
			d.waitFor("› Message")
			d.golden(fmt.Sprintf("form-%d-recipients-last-field-80x24", n))
		})
	}
}

// Every field, in focus, is on screen, at 80x24 and smaller, with 1 to 10
// recipients, going down with tab and up with shift+tab, on each
// implementation.
func TestFormScrollsToTheFieldInFocus(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, _ := proAnn(t)
			if err := e.Messages.Delete(e.As(ann.id), mustList(t, e, ann)[0].ID); err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 2, 4, 7, 10} {
				m, err := e.Messages.Create(e.As(ann.id), recipientsMessage(n))
				if err != nil {
					t.Fatal(err)
				}
				for _, height := range []int{24, 18, 14, 12} {
					cfg, _ := b.open(t, e, ann)
					d := openForm(t, cfg, 80, height, n)
					walkForm(t, d, n, height)
					d.press("esc")
					d.settle()
					d.stop()
				}
				if err := e.Messages.Delete(e.As(ann.id), m.ID); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// walkForm tabs through the form to its last field and back, checking at
// each field that it is on screen.
func walkForm(t *testing.T, d *driver, n, height int) {
	t.Helper()
	where := fmt.Sprintf("%d recipients at 80x%d", n, height)
	fields := 3 + 2*n
	check := func(i int) {
		t.Helper()
		s := d.screen()
		lines := strings.Split(s, "\n")
		if len(lines) != height {
			t.Fatalf("%s: %d lines on a screen of %d:\n%s", where, len(lines), height, s)
		}
		var want []string
		switch {
		case i == 0:
			want = []string{"› Title", fmt.Sprintf("A note for %d", n)}
		case i < fields-2:
			r := (i-1)/2 + 1
			want = []string{fmt.Sprintf("› Recipient %d ", r), fmt.Sprintf("r%d@example.com", r)}
		case i == fields-2:
			want = []string{"› Deliver after", "6 months"}
		default:
			want = []string{"› Message", "The vault's code is in the green book.", "The message will be delivered on"}
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Fatalf("%s, field %d in focus: %q is not on screen:\n%s", where, i, w, s)
			}
		}
		// The hints say what is off screen.
		body := strings.Join(lines[2:height-2], "\n")
		if above := !strings.Contains(body, "› Title") && !strings.Contains(body, "  Title"); above != strings.Contains(body, "↑ more above") {
			t.Fatalf("%s, field %d: the title is off screen: %v, but the hint says otherwise:\n%s", where, i, above, s)
		}
		if below := !strings.Contains(body, "The message will be delivered on"); below != strings.Contains(body, "↓ more below") {
			t.Fatalf("%s, field %d: the end is off screen: %v, but the hint says otherwise:\n%s", where, i, below, s)
		}
	}
	check(0)
	for i := 1; i < fields; i++ {
		d.press("tab")
		check(i)
	}
	for i := fields - 2; i >= 0; i-- {
		d.press("shift+tab")
		check(i)
	}
}

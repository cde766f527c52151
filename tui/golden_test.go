package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/tui"
)

// The main views, as text, against testdata/*.golden: the list at 120x40
// and 80x24, the form with SPEC.md's messages under the fields, the delete
// confirmation, the preview, the timeline, the hold, the form's recipient
// rows and the draft offered again. The clock is the
// environment's, so dates and days left stay put.
// `go test ./tui -run TestGoldenViews -update` rewrites them after a
// deliberate change; docs/screenshots/tui-*.txt are the same views.
func TestGoldenViews(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	ada := e.MustUser(t, "ada@example.com", "Europe/London", core.PlanPro)
	as := e.As(ada.ID)
	for i, in := range []core.MessageInput{
		{Title: "The spare key", Name: "Charles Babbage", Recipient: "charles@example.com", Body: "The key is under the blue pot by the door.", Interval: core.Interval1M},
		{Title: "Letter for my daughter's 18th birthday", Name: "Ada Byron King", Recipient: "ada.king@example.com", Body: "Dear Ada,\n\nBy now you are grown.", Interval: core.Interval12M},
		{Title: "Passwords", Body: "The vault's code is in the green book.", Interval: core.Interval6M, Recipients: []core.RecipientInput{
			{Name: "Mary Somerville", Address: "mary@example.com"}, {Name: "Charles Babbage", Address: "charles@example.com"}, {Name: "Ada Byron King", Address: "ada.king@example.com"}}},
	} {
		m, err := e.Messages.Create(as, in)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			off := false
			if _, err := e.Messages.Update(as, m.ID, core.MessageUpdate{IsActive: &off}); err != nil {
				t.Fatal(err)
			}
		}
		e.Clock.Add(36 * time.Hour)
	}
	cfg := tui.Config{Messages: e.Messages, Account: e.Auth, Emails: e.Emails, Where: "local store", Now: e.Clock.Now,
		Ctx: e.Acting(&core.Identity{UserID: ada.ID, Operator: "golden"}), DraftPath: filepath.Join(t.TempDir(), "draft.json")}

	d := drive(t, cfg, 120, 40)
	d.waitFor("Passwords")
	d.waitFor("Pro plan · 3 messages")
	d.golden("list-120x40")
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.golden("list-80x24")

	d.press("d")
	d.waitFor("It cannot be undone")
	d.golden("delete-80x24")
	d.press("n")

	d.press("down", "v")
	d.waitFor("Subject:")
	d.golden("preview-80x24")
	d.press("esc")

	d.press("up", "l")
	d.waitFor("Paused: by")
	d.golden("timeline-80x24")
	d.press("esc", "H")
	d.waitFor("Hold until")
	d.golden("hold-80x24")
	d.press("esc", "e")
	d.waitFor("(3 of up to 10")
	d.golden("form-recipients-80x24")
	d.press("esc")

	d.press("n")
	d.typeText("Half")
	d.press("tab", "tab", "ctrl+s")
	d.waitFor("Please enter a recipient name")
	d.golden("form-errors-80x24")
	// The draft is written a keystroke behind, in a command: wait until
	// the file holds the last one (a loaded machine takes a while).
	for deadline := time.Now().Add(30 * time.Second); ; {
		d.settle()
		if b, _ := os.ReadFile(cfg.DraftPath); strings.Contains(string(b), `"Half"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the draft file never held the title typed")
		}
	}
	d.press("ctrl+c")

	again := drive(t, cfg, 80, 24)
	again.waitFor("An unsent draft")
	again.waitFor("Passwords")
	again.golden("draft-offered-80x24")
}

package tui_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// proAnn is ann on the Pro plan (up to 10 recipients a message) with a
// message to three people.
// listOf starts the TUI of ann on b at 120x40 and waits for the list with
// the message to three recipients; it returns the driver and the screen.
func listOf(t *testing.T, b backend, e *testenv.Env, ann *account) (*driver, string) {
	t.Helper()
	cfg, _ := b.open(t, e, ann)
	d := drive(t, cfg, 120, 40)
	return d, d.waitFor("and 2 more")
}

func proAnn(t *testing.T) (*testenv.Env, *account, *core.Message) {
	t.Helper()
	e, ann := newEnv(t)
	if _, err := e.DB.UpdateUser(e.Ctx, ann.id, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	m, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Letters", Body: "Look after each other.", Interval: core.Interval1M,
		Recipients: []core.RecipientInput{{Name: "Bob", Address: "bob@example.com"}, {Name: "Carol", Address: "carol@example.com"}, {Name: "Dan", Address: "dan@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	return e, ann, m
}

// Several recipients in the list, the preview of each one's email, the
// test send to the author with its daily limit, on each implementation.
func TestRecipientsPreviewAndTestSend(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, m := proAnn(t)
			d, s := listOf(t, b, e, ann)
			if !strings.Contains(s, "Bob <bob@example.com> and 2 more") {
				t.Fatalf("the list:\n%s", s)
			}
			if !strings.Contains(s, "Pro plan · 1 message · up to 10 recipients each") {
				t.Fatalf("the plan line:\n%s", s)
			}

			d.press("v")
			s = d.waitFor("── Email 1 of 3 ──")
			if !strings.Contains(s, "What each recipient will get") || !strings.Contains(s, "To:       Bob <bob@example.com>") ||
				!strings.Contains(s, "Look after each other.") {
				t.Fatalf("the first email:\n%s", s)
			}
			for range 60 {
				d.press("down")
			}
			s = d.waitFor("To:       Dan <dan@example.com>")
			if !strings.Contains(s, "── Email 3 of 3 ──") {
				t.Fatalf("the last email:\n%s", s)
			}
			d.press("esc")

			before := m.SendDate
			d.press("s") // the sign-up's address is not confirmed yet
			d.waitFor("! Please confirm your email address first")
			e.MustVerify(t, ann.id)
			for i := 1; i <= core.LimitTestSendsAccountHour.Max; i++ {
				d.press("s")
				d.waitFor("A test is on its way to you: 3 emails")
			}
			as := map[string]int{}
			for n := 0; n < 3*core.LimitTestSendsAccountHour.Max; n++ {
				p, _ := e.Next(t, "ann@example.com")
				if strings.HasPrefix(p.Subject, "Verify your email") { // the sign-up's
					n--
					continue
				}
				if !strings.HasPrefix(p.Subject, core.TestSubjectPrefix) {
					t.Fatalf("the test's subject: %q", p.Subject)
				}
				as[p.Subject[strings.LastIndex(p.Subject, "(as "):]]++
			}
			for _, to := range []string{"Bob", "Carol", "Dan"} {
				if n := as["(as "+to+" will receive it)"]; n != core.LimitTestSendsAccountHour.Max {
					t.Fatalf("%d tests as %s will receive it: %v", n, to, as)
				}
			}
			d.press("s")
			d.waitFor("! Test emails are limited to 5 an hour and 20 a day")
			if got := mustList(t, e, ann); !got[0].SendDate.Equal(before) {
				t.Fatalf("the test sends moved the date: %v, was %v", got[0].SendDate, before)
			}
		})
	}
}

// The timeline opened from the list: created, then one "sent" per
// recipient after the delivery.
func TestTheTimeline(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, m := proAnn(t)
			d, _ := listOf(t, b, e, ann)
			d.press("l")
			d.waitFor("History of “Letters”")
			s := d.waitFor("Created")
			if strings.Contains(s, "Sent") {
				t.Fatalf("sent before the delivery:\n%s", s)
			}
			d.press("esc")

			for _, at := range []time.Time{m.SendDate.Add(-core.ReminderLeadTime + time.Hour), m.SendDate.Add(time.Hour)} {
				e.Clock.Set(at)
				if _, err := e.Delivery.Run(e.Ctx); err != nil {
					t.Fatal(err)
				}
			}
			d.waitFor("delivered")
			d.press("l")
			s = d.waitFor("Sent: to dan@example.com")
			for _, line := range []string{"Created", "Reminder sent", "Sent: to bob@example.com", "Sent: to carol@example.com"} {
				if !strings.Contains(s, line) {
					t.Fatalf("no %q in the timeline:\n%s", line, s)
				}
			}
			if n := strings.Count(s, "Sent: to"); n != 3 {
				t.Fatalf("%d sent, want one per recipient:\n%s", n, s)
			}
		})
	}
}

// The hold: a date refused with the rule, a hold set and shown on the list,
// then ended early.
func TestTheHold(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, _ := proAnn(t)
			d, _ := listOf(t, b, e, ann)
			d.press("?")
			d.waitFor("H hold all")
			d.press("H")
			d.waitFor("Hold everything")
			retype := func(s string) {
				for range 12 {
					d.press("backspace")
				}
				d.typeText(s)
			}
			retype("soon")
			d.press("enter")
			d.waitFor("Please enter a date as YYYY-MM-DD")
			retype("2020-01-01")
			d.press("enter")
			d.waitFor("The hold must end in the future, at most 12 months from now")

			retype("2026-04-10")
			d.press("enter")
			s := d.waitFor("Your messages are on hold.")
			if !strings.Contains(s, "Your messages are on hold until Friday, April 10, 2026.") || !strings.Contains(s, "Letters") {
				t.Fatalf("the list while held:\n%s", s)
			}
			u, err := e.DB.FindUserByID(e.Ctx, ann.id)
			if err != nil {
				t.Fatal(err)
			}
			berlin, _ := time.LoadLocation("Europe/Berlin")
			if want := time.Date(2026, 4, 10, 0, 0, 0, 0, berlin); !u.HoldUntil.Equal(want) {
				t.Fatalf("held until %v, want %v", u.HoldUntil, want)
			}

			d.press("H")
			s = d.waitFor("ctrl+x end hold")
			if !strings.Contains(s, "2026-04-10") {
				t.Fatalf("the form does not show the hold's date:\n%s", s)
			}
			d.send(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
			s = d.waitFor("The hold is over")
			if strings.Contains(s, "on hold until") {
				t.Fatalf("still shown as held:\n%s", s)
			}
			if u, _ := e.DB.FindUserByID(e.Ctx, ann.id); u.HeldAt(e.Clock.Now()) {
				t.Fatal("the store still holds")
			}
		})
	}
}

// The form's recipient rows: three added, a wrong address and a repeated
// one refused under their rows with SPEC.md's messages, then saved; an
// edit removes one; the free plan explains its limit instead of a row.
func TestRecipientRows(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, _ := proAnn(t)
			d, _ := listOf(t, b, e, ann)
			d.press("n")
			d.waitFor("Recipients: name and email (1 of up to 10")
			d.typeText("Keys")
			d.press("tab")
			d.typeText("Eve")
			d.press("tab")
			d.typeText("eve@example.com")
			d.press("ctrl+n")
			d.typeText("Fay")
			d.press("tab")
			d.typeText("fay at example")
			d.press("ctrl+n")
			d.typeText("Eve again")
			d.press("tab")
			d.typeText("EVE@example.com")
			d.waitFor("(3 of up to 10")
			d.press("tab", "tab")
			d.typeText("Spare keys at the neighbours'.")
			d.press("ctrl+p") // the preview refuses what a save would
			s := d.waitFor("Please enter a valid email address")
			if !strings.Contains(s, "Create Message") {
				t.Fatalf("the preview of a wrong form left the form:\n%s", s)
			}
			d.press("ctrl+s")
			s = d.waitFor("Please enter a valid email address")
			if !rowHas(s, "fay at example") || !strings.Contains(s, "This address is already a recipient of this message") {
				t.Fatalf("the rows' errors:\n%s", s)
			}
			d.press("shift+tab", "shift+tab") // to Eve again's address
			d.press("ctrl+r")
			d.waitFor("(2 of up to 10")
			d.press("tab") // the focus is on Fay's name: to her address
			for range "fay at example" {
				d.press("backspace")
			}
			d.typeText("fay@example.com")
			d.press("ctrl+p")
			s = d.waitFor("── Email 1 of 2 ──")
			if !strings.Contains(s, "To:       Eve <eve@example.com>") || !strings.Contains(s, "Spare keys at the neighbours'.") {
				t.Fatalf("the form's preview:\n%s", s)
			}
			d.press("esc")
			d.waitFor("Create Message")
			d.press("ctrl+s")
			s = d.waitFor("The message is saved.")
			if !rowHas(s, "Keys", "Eve <eve@example.com> and 1 more") {
				t.Fatalf("the new message:\n%s", s)
			}
			if rs := titled(t, e, ann, "Keys").RecipientList(); len(rs) != 2 || rs[1].Name != "Fay" || rs[1].Address != "fay@example.com" {
				t.Fatalf("stored recipients %+v", rs)
			}

			for i := 0; i < 3 && !strings.HasPrefix(d.screen()[strings.Index(d.screen(), "›"):], "› Letters"); i++ {
				d.press("down") // to Letters: Bob, Carol, Dan
			}
			d.press("e")
			d.waitFor("(3 of up to 10")
			d.press("tab", "tab", "tab") // Carol's name
			d.press("ctrl+r")
			d.waitFor("(2 of up to 10")
			d.press("ctrl+s")
			s = d.waitFor("The message is saved.")
			if !rowHas(s, "Letters", "Bob <bob@example.com> and 1 more") {
				t.Fatalf("the edit:\n%s", s)
			}
			if rs := titled(t, e, ann, "Letters").RecipientList(); len(rs) != 2 || rs[1].Address != "dan@example.com" {
				t.Fatalf("stored recipients after the edit %+v", rs)
			}
		})
	}
}

func TestTheFreePlanKeepsOneRecipient(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			cfg, _ := b.open(t, e, ann)
			d := drive(t, cfg, 100, 30)
			d.waitFor("No messages yet")
			d.waitFor("Free plan")
			d.press("n")
			d.waitFor("Recipient: name and email (Pro: up to 10 recipients)")
			d.press("tab", "ctrl+n")
			s := d.waitFor("Your plan allows 1 recipient per message; upgrade to Pro for up to 10.")
			if strings.Contains(s, "(2 of") || strings.Count(s, "name@example.com") != 1 {
				t.Fatalf("a second row on the free plan:\n%s", s)
			}
		})
	}
}

// titled is ann's stored message of that title.
func titled(t *testing.T, e *testenv.Env, a *account, title string) *core.Message {
	t.Helper()
	for _, m := range mustList(t, e, a) {
		if m.Title == title {
			return m
		}
	}
	t.Fatalf("no message %q stored", title)
	return nil
}

// The draft keeps the recipient rows: a quit in the middle, and the next
// start offers them again.
func TestTheDraftKeepsTheRows(t *testing.T) {
	e, ann, _ := proAnn(t)
	cfg, _ := backends[0].open(t, e, ann)
	cfg.DraftPath = filepath.Join(t.TempDir(), "draft.json")
	d := drive(t, cfg, 100, 30)
	d.waitFor("and 2 more")
	d.press("n")
	d.typeText("Keys")
	d.press("tab")
	d.typeText("Eve")
	d.press("ctrl+n")
	d.typeText("Fay")
	d.settle()
	d.press("ctrl+c")

	again := drive(t, cfg, 100, 30)
	again.waitFor("An unsent draft “Keys”")
	again.press("o")
	s := again.waitFor("(2 of up to 10")
	if !rowHas(s, "Eve") || !rowHas(s, "Fay") {
		t.Fatalf("the rows of the draft:\n%s", s)
	}
}

// The preview of a stored message, and of an edit of it, says the day it
// was written (its CreatedAt in the author's zone, as the email will), not
// the day of the preview, on each implementation.
func TestPreviewOfAStoredMessageSaysWhenItWasWritten(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann, m := proAnn(t)
			e.Clock.Add(9 * 24 * time.Hour)
			written := "on " + m.CreatedAt.In(core.LoadLocation("Europe/Berlin")).Format("Monday, 2 January 2006 at 15:04 MST")
			today := e.Clock.Now().In(core.LoadLocation("Europe/Berlin")).Format("2 January 2006")
			d, _ := listOf(t, b, e, ann)

			d.press("v")
			s := d.waitFor("── Email 1 of 3 ──")
			if !strings.Contains(s, "Written by Ann Author <ann@example.com> "+written) || strings.Contains(s, today) {
				t.Fatalf("the preview does not say %q (today is %s):\n%s", written, today, s)
			}
			d.press("esc", "e")
			d.waitFor("Update Message")
			for range 8 { // the title, three rows of two, the interval: the message
				d.press("tab")
			}
			d.typeText(" Love, Ann.")
			d.press("ctrl+p")
			s = d.waitFor("Look after each other. Love, Ann.")
			if !strings.Contains(s, written) || strings.Contains(s, today) {
				t.Fatalf("the preview of the edit does not say %q:\n%s", written, s)
			}
			d.press("esc")
			d.waitFor("Update Message")
			if got := mustList(t, e, ann); got[0].Body != m.Body {
				t.Fatalf("the preview saved the edit: %q", got[0].Body)
			}
		})
	}
}

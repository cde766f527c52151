package tui_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

const (
	letter     = "The deeds are in the blue box: ZEBRA-ORCHID-7731."
	passphrase = "violet harbor quietly mends seven copper lanterns"
)

// makePro gives the account an active Pro plan.
func makePro(t *testing.T, e *testenv.Env, a *account) {
	t.Helper()
	if _, err := e.DB.UpdateUser(e.Ctx, a.id, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// theMessage is the account's one message, as stored.
func theMessage(t *testing.T, e *testenv.Env, a *account) *core.Message {
	t.Helper()
	l, err := e.Messages.List(e.As(a.id), core.Page{})
	if err != nil || len(l.Messages) != 1 {
		t.Fatalf("%d messages, %v", len(l.Messages), err)
	}
	return l.Messages[0]
}

// opens opens m's stored envelope with pass.
func opens(t *testing.T, m *core.Message, pass string) (string, error) {
	t.Helper()
	l, ok := m.Sealed()
	if !ok {
		t.Fatalf("not sealed: %q", m.Body)
	}
	env, err := core.ParseSealed(l.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	b, err := core.Open(pass, m.ID, env)
	return string(b), err
}

var openLink = regexp.MustCompile(`/open/([A-Za-z0-9]+\.[A-Za-z0-9_-]+)`)

// A letter sealed in the TUI, over the API of a real server: the seal page
// says what stays readable, refuses a weak passphrase in the web app's
// words, never shows the passphrase, keeps the text out of the draft file;
// the server stores only the envelope, which is delivered as a link, and
// the recipient's link gives the envelope that the passphrase opens
// (core.Open, which the golden vectors hold to the browser's opener).
func TestALetterSealedInTheTUIOpensFromTheRecipientsLink(t *testing.T) {
	e, ann := newEnv(t)
	makePro(t, e, ann)
	cfg, srv := backends[1].open(t, e, ann)
	draftPath := filepath.Join(t.TempDir(), "draft.json")
	cfg.DraftPath = draftPath
	d := drive(t, cfg, 100, 40)
	d.patience = time.Minute
	d.waitFor("Pro plan · 0 messages")

	d.press("n")
	d.typeText("Deeds")
	d.press("tab")
	d.typeText("Bob")
	d.press("tab")
	d.typeText("bob@example.com")
	d.press("tab", "tab")
	d.typeText(letter)
	d.waitFor("Message · ctrl+l seal with a passphrase")
	d.press("ctrl+l")
	s := d.waitFor("Seal this message")
	for _, want := range []string{"Sendlater never receives it and cannot recover it",
		"The title and the recipients stay readable to Sendlater", "About 0 bits of the 60 needed."} {
		if !strings.Contains(s, want) {
			t.Fatalf("the seal page lacks %q:\n%s", want, s)
		}
	}
	d.typeText("correct horse battery staple")
	d.waitFor("About 47 bits of the 60 needed.")
	d.press("tab")
	d.typeText("correct horse battery staple")
	d.press("ctrl+s")
	s = d.waitFor("This passphrase is too easy to guess (about 47 bits of the 60 needed)")
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.golden("seal-weak-80x24")
	d.send(tea.WindowSizeMsg{Width: 100, Height: 40})
	if strings.Contains(s, "correct horse") || strings.Contains(s, "battery") {
		t.Fatalf("the passphrase shows:\n%s", s)
	}
	d.press("shift+tab", "ctrl+u")
	d.typeText(passphrase)
	d.waitFor("Strong enough: about")
	d.press("tab", "ctrl+u")
	d.typeText(passphrase + "!")
	d.press("tab")
	d.typeText("Lisbon, the tram")
	d.press("enter")
	d.waitFor("The two passphrases differ")
	d.press("shift+tab", "backspace", "tab", "enter")
	d.waitFor("Message · sealed on save")
	d.waitFor("The letter will be sealed with your passphrase when you save.")
	d.settle()
	if b, err := os.ReadFile(draftPath); err == nil && strings.Contains(string(b), "ZEBRA") {
		t.Fatalf("the draft file holds the letter:\n%s", b)
	}

	d.press("ctrl+s")
	d.waitFor("The message is saved.")
	m := theMessage(t, e, ann)
	if text, err := opens(t, m, passphrase); err != nil || text != letter {
		t.Fatalf("the stored envelope opens to %q, %v", text, err)
	}
	if l, _ := m.Sealed(); l.Hint != "Lisbon, the tram" || strings.Contains(m.Body, "ZEBRA") || m.Title != "Deeds" {
		t.Fatalf("stored: %q %+v", m.Body, l)
	}
	if s := d.screen(); !strings.Contains(s, "Deeds (sealed)") {
		t.Fatalf("not listed:\n%s", s)
	}

	e.Clock.Set(m.SendDate.Add(time.Minute))
	if _, err := e.Delivery.Run(e.Ctx); err != nil {
		t.Fatal(err)
	}
	var mail string
	for range 5 {
		p, _ := e.Next(t, "bob@example.com")
		if strings.Contains(p.Subject, "sealed") {
			mail = p.Text
			break
		}
	}
	link := openLink.FindStringSubmatch(mail)
	if link == nil || strings.Contains(mail, "ZEBRA") || !strings.Contains(mail, "Lisbon, the tram") {
		t.Fatalf("the email:\n%s", mail)
	}
	res, err := http.Get(srv.URL() + "/api/open/" + link[1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var got struct {
		Data struct{ MessageID, Envelope string }
	}
	if err := json.Unmarshal(body, &got); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	env, err := core.ParseSealed(got.Data.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := core.Open(passphrase, got.Data.MessageID, env); err != nil || string(text) != letter {
		t.Fatalf("the recipient's link opens to %q, %v", text, err)
	}
	if _, err := core.Open(passphrase+"!", got.Data.MessageID, env); err != core.ErrWrongPassphrase {
		t.Fatalf("another passphrase: %v", err)
	}
	// The author's history says when the recipient opened it.
	d.press("l")
	d.waitFor("Opened from the link: by bob@example.com")
}

// Editing a sealed message, on each implementation: its text is not in
// the form until ctrl+l opens it with the passphrase (a wrong one is told
// so); an edit is sealed again, with a new salt, under the same passphrase.
func TestEditingASealedMessageInTheTUI(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			makePro(t, e, ann)
			id := core.NewID()
			env, err := core.Seal(passphrase, id, []byte(letter), core.DefaultSealParams)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Deeds", Name: "Bob", Recipient: "bob@example.com",
				ID: id, Sealed: &core.SealedLetter{Envelope: env.String(), Hint: "Lisbon"}}); err != nil {
				t.Fatal(err)
			}
			cfg, _ := b.open(t, e, ann)
			d := drive(t, cfg, 100, 40)
			d.patience = time.Minute
			d.waitFor("Deeds")
			d.press("e")
			s := d.waitFor("Message · sealed: ctrl+l opens it")
			if strings.Contains(s, "ZEBRA") || strings.Contains(s, "sealed:v1") {
				t.Fatalf("the form shows the letter:\n%s", s)
			}
			d.press("shift+tab")
			d.typeText("typed while sealed")
			if strings.Contains(d.screen(), "typed while sealed") {
				t.Fatalf("a locked letter took text:\n%s", d.screen())
			}
			d.press("ctrl+l")
			d.waitFor("Open the sealed letter")
			d.typeText("violet harbor quietly mends seven copper lantern")
			d.press("enter")
			d.waitFor("This passphrase does not open the letter.")
			d.press("ctrl+u")
			d.typeText(passphrase)
			d.press("enter")
			d.waitFor("The letter is open here; it is sealed again when you save.")
			d.waitFor(letter)
			d.typeText(" Love, Ann")
			d.press("ctrl+s")
			d.waitFor("The message is saved.")
			m := theMessage(t, e, ann)
			text, err := opens(t, m, passphrase)
			if err != nil || text != letter+" Love, Ann" {
				t.Fatalf("re-sealed to %q, %v", text, err)
			}
			l, _ := m.Sealed()
			if l.Envelope == env.String() || l.Hint != "Lisbon" || strings.Split(l.Envelope, "$")[3] == strings.Split(env.String(), "$")[3] {
				t.Fatalf("not sealed anew: %+v", l)
			}
		})
	}
}

// A free plan does not seal: ctrl+l says which plans do, as the web app's
// switch does.
func TestSealingIsAPaidPerkInTheTUI(t *testing.T) {
	e, ann := newEnv(t)
	cfg, _ := backends[0].open(t, e, ann)
	d := drive(t, cfg, 100, 30)
	d.waitFor("Free plan")
	d.press("n")
	d.waitFor("Message · sealing: Pro and Business plans")
	d.press("ctrl+l")
	s := d.waitFor("Sealed messages, which only your recipients can open, are part of the Pro and Business plans")
	if strings.Contains(s, "Seal this message") || !strings.Contains(s, "Create Message") {
		t.Fatalf("%s", s)
	}
}

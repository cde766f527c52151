package tui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// With a token that may only read (made in the web app without
// messages:write), the list shows, and a key that changes a message says in
// one line what the token lacks and what to do, instead of the server's
// long sentence cut off; nothing changes.
func TestATokenWithoutAScopeIsToldWhatToDo(t *testing.T) {
	e, ann := newEnv(t)
	m, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Rent", Name: "Bob", Recipient: "bob@example.com", Body: "The key."})
	if err != nil {
		t.Fatal(err)
	}
	toks, err := e.Auth.SignIn(e.Ctx, "ann@example.com", "a long enough passphrase 42", core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	session, err := e.Auth.Authenticate(e.Ctx, toks.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	_, reader, err := e.Auth.CreateAccessToken(e.Acting(session), "reader", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(48 * time.Hour) // a postpone would move the date: the server is asked
	remote := backends[1]
	if remote.name != "remote" {
		t.Fatal("backends[1] is not the remote one")
	}
	cfg, _ := remote.open(t, e, &account{id: ann.id, token: reader})
	d := drive(t, cfg, 80, 24)
	d.waitFor("Rent")
	d.press("p")
	s := d.waitFor(`Your token lacks the "messages:write" scope: run sendlater login again.`)
	if strings.Contains(s, "postponed") {
		t.Fatalf("the screen:\n%s", s)
	}
	d.settle()
	if got := mustList(t, e, ann); len(got) != 1 || !got[0].SendDate.Equal(m.SendDate) {
		t.Fatalf("the message changed: %+v", got)
	}
}

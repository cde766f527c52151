package tui

import (
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A sealed message's form shows no stored envelope as its text, and an edit
// of its other fields leaves the letter sealed.
func TestASealedMessageStaysSealedInTheForm(t *testing.T) {
	m := &core.Message{ID: "m1", Title: "T", Name: "Ann", Recipient: "ann@example.com", Interval: core.Interval1M}
	m.SetSealed(core.SealedLetter{Envelope: "sealed:v1$argon2id$m=65536,t=3,p=1$a$b$c", Hint: "h"})
	f := newForm(draftOf(m), m, 1, newStyles(false))
	if f.body.Value() != "" {
		t.Fatalf("the form's text: %q", f.body.Value())
	}
	f.title.SetValue("New title")
	up := f.changes()
	if up.Body != nil || up.Sealed != nil || up.Title == nil || *up.Title != "New title" {
		t.Fatalf("the edit: %+v", up)
	}
}

// Sealing a message that was text: the save seals for the message's own
// id and sends no text; the draft file never holds the letter meanwhile.
// Removing the seal of an opened letter sends it back as text.
func TestSealingAnEditedTextMessage(t *testing.T) {
	m := &core.Message{ID: "m1", Title: "T", Name: "Ann", Recipient: "ann@example.com", Interval: core.Interval1M, Body: "The key is under the pot."}
	f := newForm(draftOf(m), m, 1, newStyles(false))
	if f.sealJob() != nil || f.locked {
		t.Fatal("a text message seals before it is asked to")
	}
	f.seal = &sealChoice{passphrase: "violet harbor quietly mends seven copper lanterns", hint: "Lisbon"}
	job, up := f.sealJob(), f.changes()
	if job == nil || job.id != "m1" || job.body != "The key is under the pot." || up.Body != nil || f.draft().Body != "" {
		t.Fatalf("job %+v, update %+v, draft %+v", job, up, f.draft())
	}

	s := &core.Message{ID: "m2", Title: "T", Name: "Ann", Recipient: "ann@example.com", Interval: core.Interval1M}
	s.SetSealed(core.SealedLetter{Envelope: "sealed:v1$argon2id$m=65536,t=3,p=1$a$b$c", Hint: "h"})
	g := newForm(draftOf(s), s, 1, newStyles(false))
	g.locked, g.seal = false, &sealChoice{passphrase: "p", hint: "h"}
	g.opened = &openedLetter{text: "opened text", seal: *g.seal}
	g.body.SetValue("opened text")
	if g.sealJob() != nil || g.changes().Body != nil {
		t.Fatal("an opened letter left as it was is sealed again")
	}
	g.seal = nil // ctrl+x: do not seal
	if up := g.changes(); up.Body == nil || *up.Body != "opened text" || g.sealJob() != nil {
		t.Fatalf("unsealed: %+v", up)
	}
}

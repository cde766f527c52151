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

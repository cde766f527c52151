package mailer_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A letter that opens with its own greeting is not greeted twice; one that
// does not gets "Dear {name}," above it, in the text and the HTML part.
func TestDeliverySalutationOnlyWithoutTheBodysOwn(t *testing.T) {
	for _, c := range []struct {
		name, body string
		greeted    bool // the template adds "Dear Ann Reader,"
	}{
		{"Ann Reader", "Dear Ann,\nthe key is under the pot.", false},
		{"Ann Reader", "hello you,\nthe key is under the pot.", false},
		{"Ann Reader", "\n  Ann, my dear,\nthe key is under the pot.", false},
		{"Ann Reader", "Liebe Ann,\nder Schlüssel.", false},
		{"Ann Reader", "The key is under the pot.\nHello again, I forgot.", true},
		{"Ann Reader", "Annabel is coming, the key is under the pot.", true},
	} {
		e, err := MustTemplates(t).Delivery(core.DeliveryEmail{
			To: core.Address{Name: c.name, Address: "ann@example.com"}, Author: core.Address{Name: "Bob", Address: "bob@example.com"},
			Body: c.body, WrittenAt: time.Date(2025, 9, 2, 8, 30, 0, 0, time.UTC), Date: time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC),
		})
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(e.Text, "\r\n", "\n")
		if got := strings.Contains(text, "Dear Ann Reader,\n\n"+c.body); got != c.greeted {
			t.Errorf("%q: text greets %v, want %v:\n%s", c.body, got, c.greeted, text)
		}
		if got := strings.Contains(e.HTML, ">Dear Ann Reader,</p>"); got != c.greeted {
			t.Errorf("%q: HTML greets %v, want %v:\n%s", c.body, got, c.greeted, e.HTML)
		}
		if strings.Count(text, "Dear ") > 1 || strings.Count(strings.ToLower(e.HTML), ">dear ") > 1 {
			t.Errorf("%q: greeted twice:\n%s", c.body, text)
		}
	}
	e, err := MustTemplates(t).Delivery(core.DeliveryEmail{To: core.Address{Address: "x@example.com"}, Body: "The key."})
	if err != nil || !strings.Contains(e.Text, "Hello,\n\nThe key.") {
		t.Errorf("no name: %v\n%s", err, e.Text)
	}
}

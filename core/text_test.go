package core_test

import (
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// A name or title that breaks the text rule (core/text.go) is refused at
// every entry point with the field and the rule, and changes nothing, on
// both backends.
func TestNamesWithHiddenCharactersChangeNothing(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		id := signedUp(t, e)
		ctx := e.Acting(id)
		refused := func(what string, err error, field, words string) {
			t.Helper()
			ce, ok := err.(*core.Error)
			if !ok || ce.Code != core.EValidation || ce.Fields[field] != words+" may not contain control, invisible or direction-changing characters" {
				t.Errorf("%s: %v %+v", what, err, ce)
			}
		}
		_, _, err := e.Auth.CreateAccessToken(ctx, "ci\x00\u202etoken", nil)
		refused("token name", err, "name", "The name")
		if ts, err := e.Store.ListAccessTokens(e.Ctx, id.UserID); err != nil || len(ts) != 0 {
			t.Fatalf("tokens %v %v", ts, err)
		}
		in := core.MessageInput{Title: "For later\ufeff", Name: "Ann", Recipient: "ann@example.com", Body: "Hello.", Interval: core.Interval1M}
		_, err = e.Messages.Create(ctx, in)
		refused("title", err, "title", "The title")
		in.Title, in.Name = "For later", "An\u00adn"
		_, err = e.Messages.Create(ctx, in)
		refused("recipient name", err, "name", "The recipient name")
		if ms, total, err := e.Store.ListMessages(e.Ctx, core.MessageFilter{}); err != nil || total != 0 {
			t.Fatalf("messages %v %d %v", ms, total, err)
		}
		before, err := e.Store.FindUserByID(e.Ctx, id.UserID)
		if err != nil {
			t.Fatal(err)
		}
		name := "Ann\u200b"
		_, err = e.Auth.UpdateProfile(ctx, core.ProfileUpdate{Name: &name})
		refused("user name", err, "name", "The name")
		if after, err := e.Store.FindUserByID(e.Ctx, id.UserID); err != nil || after.Name != before.Name {
			t.Fatalf("the name became %q (%v)", after.Name, err)
		}
	})
}

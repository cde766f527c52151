package core_test

import (
	"testing"

	"github.com/sendlater/sendlater/core"
)

// The marks live beside the message (issue 31): every read that shows
// them to the author joins them in (the list, a message, an edit's and a
// postpone's replies, the account's export), and a delivery's write of the
// message does not lose them.
func TestBounceMarksShowWhereverTheAuthorReads(t *testing.T) {
	e, u, m := mustBounceEnv(t)
	path := e.notice(t, u.ID, m.ID, "ben@example.com")
	if got, err := e.Graph.BounceReports.Process(e.Ctx, core.BounceReport{ReturnPath: path, Kind: core.BounceHard,
		Status: "5.1.1", Reason: "550 no such user", Source: "smtp"}); err != nil || got != core.BounceMarked {
		t.Fatalf("Process = %v, %v", got, err)
	}
	bouncing := func(what string, m *core.Message) {
		t.Helper()
		rs := m.RecipientList()
		if len(rs) != 2 || rs[0].Bouncing() || !rs[1].Bouncing() || rs[1].Bounce.Reason != "550 no such user" {
			t.Fatalf("%s: recipients %+v", what, rs)
		}
	}
	ctx := e.As(u.ID)
	page, err := e.Messages.List(ctx, core.Page{})
	if err != nil || len(page.Messages) != 1 {
		t.Fatalf("list %v %v", page, err)
	}
	bouncing("list", page.Messages[0])
	got, err := e.Messages.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	bouncing("get", got)
	title := "A new title"
	if got, err = e.Messages.Update(ctx, m.ID, core.MessageUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	bouncing("edit", got)
	x, err := e.Graph.Auth.Export(ctx)
	if err != nil || len(x.Messages) != 1 {
		t.Fatalf("export %v", err)
	}
	bouncing("export", x.Messages[0])
	if _, err := e.Store.SettleMessage(e.Ctx, m.ID, func(m *core.Message) ([]*core.OutboxItem, error) {
		m.Attempts++
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	bouncing("after a delivery's write", e.find(t, m.ID))
}

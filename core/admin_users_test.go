package core_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// Disabling ends the user's access tokens at once, holds their active
// messages paused (leaving their own pause alone), refuses changes even by
// an operator acting for them, and is written to the audit log with who.
func TestDisableHoldsMessagesAndEndsAccess(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	as := e.As(u.ID)
	in := core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b", Interval: core.Interval1M}
	own, err := e.Messages.Create(as, in)
	must(t, err)
	held, err := e.Messages.Create(as, in)
	must(t, err)
	off := false
	_, err = e.Messages.Update(as, own.ID, core.MessageUpdate{IsActive: &off})
	must(t, err)
	tok := &core.AccessToken{ID: core.NewID(), UserID: u.ID, Name: "laptop", Hash: core.HashSecret(core.NewSecret()), CreatedAt: e.Clock.Now()}
	must(t, e.DB.CreateAccessToken(e.Ctx, tok))
	withToken := e.Acting(&core.Identity{UserID: u.ID, TokenID: tok.ID})
	must(t, e.Auth.VerifyIdentity(withToken))

	op := core.WithOperator(e.Ctx, "alice (uid 1000)")
	d, err := e.Admin.SetUserDisabled(op, "ADA@example.com", true)
	must(t, err)
	if !d.Disabled() || !slices.Equal(d.HeldMessages, []string{held.ID}) {
		t.Fatalf("disabled user: %+v", d)
	}
	if err := e.Auth.VerifyIdentity(withToken); core.ErrorCode(err) != core.EInvalidToken {
		t.Fatalf("the access token after disable: %v", err)
	}
	m, err := e.DB.FindMessageByID(e.Ctx, held.ID)
	must(t, err)
	if m.IsActive || !m.DueAt.IsZero() {
		t.Fatalf("a held message stays due: %+v", m)
	}
	operator := e.Acting(&core.Identity{UserID: u.ID, Operator: "admin socket"})
	on := true
	if _, err := e.Messages.Update(operator, held.ID, core.MessageUpdate{IsActive: &on}); core.ErrorCode(err) != core.EUserDisabled {
		t.Fatalf("resuming a disabled user's message as them: %v", err)
	}
	if _, err := e.Admin.SetMessageActive(op, held.ID, true); core.ErrorCode(err) != core.EConflict {
		t.Fatalf("messages resume while disabled: %v", err)
	}

	e.Clock.Add(time.Minute)
	_, err = e.Admin.SetUserDisabled(op, u.ID, false)
	must(t, err)
	for id, want := range map[string]bool{own.ID: false, held.ID: true} {
		m, err := e.DB.FindMessageByID(e.Ctx, id)
		must(t, err)
		if m.IsActive != want {
			t.Fatalf("after enable, message %s active %v, want %v", id, m.IsActive, want)
		}
	}
	log, err := e.Admin.ListAudit(e.Ctx, e.Clock.Now().AddDate(0, 0, -1), 0)
	must(t, err)
	if len(log) != 2 || log[0].Action != "users.disable" || log[1].Action != "users.enable" ||
		log[0].Actor != "alice (uid 1000)" || log[0].Target != "ada@example.com" {
		t.Fatalf("audit log: %+v %+v", log[0], log[len(log)-1])
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

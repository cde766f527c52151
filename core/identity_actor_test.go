package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// Who acts comes from ctx and from nowhere else: without an identity every
// author-side method answers auth/invalid-user-token and changes nothing.
func TestNoIdentityIsNotSignedIn(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	ctx := context.Background()
	in := core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}
	name := "x"
	for what, call := range map[string]func() error{
		"List":     func() error { _, err := e.Messages.List(ctx, core.Page{}); return err },
		"Get":      func() error { _, err := e.Messages.Get(ctx, "x"); return err },
		"Create":   func() error { _, err := e.Messages.Create(ctx, in); return err },
		"Update":   func() error { _, err := e.Messages.Update(ctx, "x", core.MessageUpdate{}); return err },
		"Postpone": func() error { _, err := e.Messages.Postpone(ctx, "x"); return err },
		"Delete":   func() error { return e.Messages.Delete(ctx, "x") },
		"Follow":   func() error { _, err := e.Messages.Follow(ctx); return err },
		"Me":       func() error { _, err := e.Auth.Me(ctx); return err },
		"UpdateProfile": func() error {
			_, err := e.Auth.UpdateProfile(ctx, core.ProfileUpdate{Name: &name})
			return err
		},
		"SignOut":           func() error { return e.Auth.SignOut(ctx) },
		"CreateAccessToken": func() error { _, _, err := e.Auth.CreateAccessToken(ctx, "t", core.AllScopes); return err },
		"ListAccessTokens":  func() error { _, err := e.Auth.ListAccessTokens(ctx); return err },
		"RevokeAccessToken": func() error { return e.Auth.RevokeAccessToken(ctx, "x") },
		"Reauth":            func() error { _, err := e.Auth.Reauth(ctx, "pw", core.Client{}); return err },
		"ChangePassword":    func() error { return e.Auth.ChangePassword(ctx, "a long and unusual passphrase") },
		"DeleteAccount":     func() error { return e.Auth.DeleteAccount(ctx) },
		"Export":            func() error { _, err := e.Auth.Export(ctx); return err },
		"VerifyIdentity":    func() error { return e.Auth.VerifyIdentity(ctx) },
		"WebhookSecrets":    func() error { _, err := e.WebhookSecrets.Rotate(ctx); return err },
	} {
		if got := core.ErrorCode(call()); got != core.EInvalidToken {
			t.Errorf("%s without an identity: %q, want %s", what, got, core.EInvalidToken)
		}
	}
	if ms, _, _ := e.DB.ListMessages(ctx, core.MessageFilter{}); len(ms) != 0 {
		t.Fatalf("%d messages stored", len(ms))
	}
}

// An operator acting for a user reads and edits what the user could, but
// never what needs the user's own recent sign-in.
func TestOperatorIdentity(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	ann := e.MustUser(t, "ann@example.com", "", core.PlanStarter)
	op := e.Acting(&core.Identity{UserID: ann.ID, Operator: "admin socket"})
	if _, err := e.Messages.Create(op, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	if me, err := e.Auth.Me(op); err != nil || me.UID != ann.ID || me.CanAddMessage {
		t.Fatalf("me %+v %v", me, err)
	}
	email := "new@example.com"
	for what, err := range map[string]error{
		"RequireRecentLogin": e.Auth.RequireRecentLogin(op),
		"ChangePassword":     e.Auth.ChangePassword(op, "a long and unusual passphrase"),
		"DeleteAccount":      e.Auth.DeleteAccount(op),
		"SignOut":            e.Auth.SignOut(op),
		"UpdateProfile email": func() error {
			_, err := e.Auth.UpdateProfile(op, core.ProfileUpdate{Email: &email})
			return err
		}(),
		"CreateAccessToken": func() error { _, _, err := e.Auth.CreateAccessToken(op, "t", core.AllScopes); return err }(),
	} {
		if core.ErrorCode(err) != core.EOperatorNotAllowed {
			t.Errorf("%s by an operator: %v, want %s", what, err, core.EOperatorNotAllowed)
		}
	}
	if err := e.Auth.VerifyIdentity(op); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.DeleteUser(e.Ctx, ann.ID); err != nil {
		t.Fatal(err)
	}
	if got := core.ErrorCode(e.Auth.VerifyIdentity(op)); got != core.EInvalidToken {
		t.Fatalf("an operator acting for a deleted user: %q", got)
	}
}

// signedUp signs ann up and returns the identity her ID token proves.
func signedUp(t *testing.T, e *testenv.Env) *core.Identity {
	t.Helper()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: goodPassword}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Auth.Authenticate(e.Ctx, tok.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// VerifyIdentity holds as long as what proved the identity: the ID token's
// hour and its session, the access token.
func TestVerifyIdentity(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	id := signedUp(t, e)
	_, secret, err := e.Auth.CreateAccessToken(e.Acting(id), "script", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := e.Auth.Authenticate(e.Ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if e.Auth.VerifyIdentity(e.Acting(id)) != nil || e.Auth.VerifyIdentity(e.Acting(pat)) != nil {
		t.Fatal("fresh identities do not hold")
	}
	e.Clock.Add(core.IDTokenTTL)
	wantCode(t, e.Auth.VerifyIdentity(e.Acting(id)), core.EInvalidToken)
	if err := e.Auth.VerifyIdentity(e.Acting(pat)); err != nil {
		t.Fatalf("an access token does not expire: %v", err)
	}
	if err := e.Auth.RevokeAccessToken(e.Acting(pat), pat.TokenID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.Auth.VerifyIdentity(e.Acting(pat)), core.EInvalidToken)
}

// Follow sends the list at once, a burst of changes as one list, and ends
// with auth/invalid-user-token when the session ends.
func TestFollow(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	e.Messages.Recheck = 50 * time.Millisecond
	id := signedUp(t, e)
	ctx := e.Acting(id)
	lists, err := e.Messages.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := func() core.MessageList {
		t.Helper()
		select {
		case l := <-lists:
			return l
		case <-time.After(2 * time.Second):
			t.Fatal("nothing followed")
			return core.MessageList{}
		}
	}
	if l := next(); l.Err != nil || len(l.Messages) != 0 {
		t.Fatalf("first list %+v", l)
	}
	m, err := e.Messages.Create(ctx, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := e.DB.UpdateMessage(e.Ctx, m.ID, func(m *core.Message) error { m.Title += "!"; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	lists2 := 0
	for {
		l := next()
		lists2++
		if l.Err != nil || len(l.Messages) != 1 {
			t.Fatalf("list %+v", l)
		}
		if l.Messages[0].Title == "t!!!!!!!!!!" {
			break
		}
	}
	if lists2 > 3 {
		t.Errorf("a create and 10 writes sent %d lists", lists2)
	}
	if err := e.Auth.SignOut(ctx); err != nil {
		t.Fatal(err)
	}
	if l := next(); core.ErrorCode(l.Err) != core.EInvalidToken {
		t.Fatalf("after sign-out %+v", l)
	}
	if _, ok := <-lists; ok {
		t.Fatal("the channel stayed open")
	}
}

// A slot carries no identity until set, then the one set, to every context
// made from it, before or after; WithIdentity on top of it still decides.
func TestIdentitySlot(t *testing.T) {
	var slot core.IdentitySlot
	ctx := core.WithIdentitySlot(context.Background(), &slot)
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	if core.IdentityFrom(ctx) != nil || core.IdentityFrom(child) != nil {
		t.Fatal("an empty slot carries an identity")
	}
	ann := &core.Identity{UserID: "ann"}
	slot.Set(ann)
	if core.IdentityFrom(ctx) != ann || core.IdentityFrom(child) != ann {
		t.Fatal("the slot's identity is not in its contexts")
	}
	bob := &core.Identity{UserID: "bob"}
	if core.IdentityFrom(core.WithIdentity(child, bob)) != bob {
		t.Fatal("WithIdentity over a slot does not decide")
	}
}

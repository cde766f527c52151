package core_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// scoped is a signed-up author, their session, and a message of theirs.
type scoped struct {
	e       *testenv.Env
	session context.Context
	msg     *core.Message
}

func newScoped(t *testing.T, e *testenv.Env) *scoped {
	t.Helper()
	toks, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: "a long enough passphrase 42",
		Name: "Ann", Timezone: "Europe/Berlin"}, core.Client{})
	must(t, err)
	id, err := e.Auth.Authenticate(e.Ctx, toks.IDToken)
	must(t, err)
	s := &scoped{e: e, session: e.Acting(id)}
	s.msg, err = e.Messages.Create(s.session, core.MessageInput{Title: "Rent", Name: "Bob", Recipient: "bob@example.com", Body: "The key."})
	must(t, err)
	return s
}

// token makes a token with scopes through the session and returns the
// context of a request that presents it, and what the list shows of it.
func (s *scoped) token(t *testing.T, scopes []string) (context.Context, core.AccessTokenInfo) {
	t.Helper()
	info, secret, err := s.e.Auth.CreateAccessToken(s.session, "t", scopes)
	must(t, err)
	id, err := s.e.Auth.Authenticate(s.e.Ctx, secret)
	must(t, err)
	return s.e.Acting(id), info
}

// refused fails unless err is auth/insufficient-scope naming scope.
func refused(t *testing.T, what string, err error, scope string) {
	t.Helper()
	e, ok := core.AsError(err)
	if !ok || e.Code != core.EInsufficientScope || !strings.Contains(e.Message, `"`+scope+`"`) {
		t.Fatalf("%s: %v, want %s naming %q", what, err, core.EInsufficientScope, scope)
	}
}

func allowed(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// A token made without scopes reads and nothing more: the messages but not
// a change to them, nor anything of the account; what it is refused
// changes nothing.
func TestAReadOnlyTokenOnlyReads(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		s := newScoped(t, e)
		ro, info := s.token(t, nil)
		if !slices.Equal(info.Scopes, []string{core.ScopeMessagesRead}) || info.MadeBeforeScopes {
			t.Fatalf("a token made without scopes: %+v, want messages:read only", info)
		}
		id := s.msg.ID
		_, err := e.Messages.List(ro, core.Page{})
		allowed(t, "List", err)
		_, err = e.Messages.Get(ro, id)
		allowed(t, "Get", err)
		_, err = e.Messages.Events(ro, id)
		allowed(t, "Events", err)
		_, err = e.Messages.PreviewMessage(ro, id, core.MessageUpdate{})
		allowed(t, "PreviewMessage", err)
		_, err = e.Auth.Me(ro)
		allowed(t, "Me", err)

		title := "Changed"
		_, err = e.Messages.Create(ro, core.MessageInput{Title: "New", Name: "Bob", Recipient: "bob@example.com", Body: "x"})
		refused(t, "Create", err, core.ScopeMessagesWrite)
		_, err = e.Messages.Update(ro, id, core.MessageUpdate{Title: &title})
		refused(t, "Update", err, core.ScopeMessagesWrite)
		_, err = e.Messages.Postpone(ro, id)
		refused(t, "Postpone", err, core.ScopeMessagesWrite)
		refused(t, "Delete", e.Messages.Delete(ro, id), core.ScopeMessagesWrite)
		_, err = e.Messages.SendTest(ro, id)
		refused(t, "SendTest", err, core.ScopeMessagesWrite)
		_, err = e.Messages.Hold(ro, e.Clock.Now().Add(24*time.Hour))
		refused(t, "Hold", err, core.ScopeMessagesWrite)
		_, err = e.Messages.EndHold(ro)
		refused(t, "EndHold", err, core.ScopeMessagesWrite)

		name := "Mallory"
		_, err = e.Auth.UpdateProfile(ro, core.ProfileUpdate{Name: &name})
		refused(t, "UpdateProfile", err, core.ScopeAccount)
		_, err = e.Auth.ListAccessTokens(ro)
		refused(t, "ListAccessTokens", err, core.ScopeAccount)
		_, _, err = e.Auth.CreateAccessToken(ro, "more", core.AllScopes)
		refused(t, "CreateAccessToken", err, core.ScopeAccount)
		_, other := s.token(t, nil)
		refused(t, "RevokeAccessToken of another token", e.Auth.RevokeAccessToken(ro, other.ID), core.ScopeAccount)
		_, err = e.Auth.Export(ro)
		refused(t, "Export", err, core.ScopeAccount)
		refused(t, "SendEmailVerification", e.Auth.SendEmailVerification(ro), core.ScopeAccount)
		refused(t, "SendReminderAddressConfirmation", e.Auth.SendReminderAddressConfirmation(ro), core.ScopeAccount)
		refused(t, "ChangePassword", e.Auth.ChangePassword(ro, "another long passphrase 43"), core.ScopeAccount)
		refused(t, "DeleteAccount", e.Auth.DeleteAccount(ro), core.ScopeAccount)
		_, err = e.WebhookSecrets.Rotate(ro)
		refused(t, "Rotate the webhook secret", err, core.ScopeAccount)
		_, err = e.Social.LinkedAccounts(ro)
		refused(t, "LinkedAccounts", err, core.ScopeAccount)

		m, err := e.Messages.Get(s.session, id)
		must(t, err)
		if m.Title != "Rent" || !m.SendDate.Equal(s.msg.SendDate) || !m.IsActive {
			t.Fatalf("a refused call changed the message: %+v", m)
		}
		me, err := e.Auth.Me(s.session)
		must(t, err)
		ts, err := e.Auth.ListAccessTokens(s.session)
		must(t, err)
		if me.Name != "Ann" || len(ts) != 2 {
			t.Fatalf("a refused call changed the account: %+v, %d tokens", me, len(ts))
		}
		// It may always revoke itself (sendlater logout).
		allowed(t, "SignOut", e.Auth.SignOut(ro))
	})
}

// A token with messages:write changes messages but not the account.
func TestAWriteTokenWritesMessagesNotTheAccount(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		s := newScoped(t, e)
		rw, info := s.token(t, []string{core.ScopeMessagesWrite, core.ScopeMessagesRead, core.ScopeMessagesWrite})
		if !slices.Equal(info.Scopes, []string{core.ScopeMessagesRead, core.ScopeMessagesWrite}) {
			t.Fatalf("scopes %q, want messages:read, messages:write once each in that order", info.Scopes)
		}
		title := "Changed"
		_, err := e.Messages.Update(rw, s.msg.ID, core.MessageUpdate{Title: &title})
		allowed(t, "Update", err)
		_, err = e.Messages.Postpone(rw, s.msg.ID)
		allowed(t, "Postpone", err)
		_, err = e.Messages.Hold(rw, e.Clock.Now().Add(24*time.Hour))
		allowed(t, "Hold", err)
		_, err = e.Messages.EndHold(rw)
		allowed(t, "EndHold", err)
		allowed(t, "Delete", e.Messages.Delete(rw, s.msg.ID))

		name := "Mallory"
		_, err = e.Auth.UpdateProfile(rw, core.ProfileUpdate{Name: &name})
		refused(t, "UpdateProfile", err, core.ScopeAccount)
		_, err = e.Auth.ListAccessTokens(rw)
		refused(t, "ListAccessTokens", err, core.ScopeAccount)
		_, err = e.Auth.Export(rw)
		refused(t, "Export", err, core.ScopeAccount)

		// Writing without reading: the list is refused.
		wo, _ := s.token(t, []string{core.ScopeMessagesWrite})
		_, err = e.Messages.List(wo, core.Page{})
		refused(t, "List with messages:write only", err, core.ScopeMessagesRead)
		_, err = e.Messages.Follow(wo)
		refused(t, "Follow with messages:write only", err, core.ScopeMessagesRead)
		_, err = e.Messages.Create(wo, core.MessageInput{Title: "New", Name: "Bob", Recipient: "bob@example.com", Body: "x"})
		allowed(t, "Create with messages:write only", err)
	})
}

// A token made before tokens had scopes (stored without any) keeps every
// scope, so that no script or TUI using one stops working, and the list
// says so.
func TestATokenFromBeforeScopesKeepsFullAccess(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		s := newScoped(t, e)
		me, err := e.Auth.Me(s.session)
		must(t, err)
		secret := core.AccessTokenPrefix + core.NewSecret()
		must(t, e.Store.CreateAccessToken(e.Ctx, &core.AccessToken{UserID: me.UID, Name: "old laptop",
			Hash: core.HashSecret(secret), CreatedAt: e.Clock.Now()}))
		id, err := e.Auth.Authenticate(e.Ctx, secret)
		must(t, err)
		old := e.Acting(id)

		ts, err := e.Auth.ListAccessTokens(s.session)
		must(t, err)
		if len(ts) != 1 || !ts[0].MadeBeforeScopes || !slices.Equal(ts[0].Scopes, core.AllScopes) {
			t.Fatalf("the list shows %+v, want every scope, made before scopes", ts)
		}
		title := "Changed"
		_, err = e.Messages.Update(old, s.msg.ID, core.MessageUpdate{Title: &title})
		allowed(t, "Update", err)
		name := "Ann B."
		_, err = e.Auth.UpdateProfile(old, core.ProfileUpdate{Name: &name})
		allowed(t, "UpdateProfile", err)
		_, err = e.Auth.ListAccessTokens(old)
		allowed(t, "ListAccessTokens", err)
		// Still never a recent login.
		_, _, err = e.Auth.CreateAccessToken(old, "more", nil)
		wantCode(t, err, core.ERequiresRecentLogin)
	})
}

// Scopes are checked when a token is made: an unknown one, or none at all
// in a list given, is refused naming the field, and no token is made.
func TestTokenScopesAreValidated(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		s := newScoped(t, e)
		_, _, err := e.Auth.CreateAccessToken(s.session, "t", []string{core.ScopeMessagesRead, "admin"})
		wantFields(t, err, map[string]string{"scopes": "Each scope must be one of messages:read, messages:write, account"})
		_, _, err = e.Auth.CreateAccessToken(s.session, "t", []string{})
		wantFields(t, err, map[string]string{"scopes": "Choose at least one scope: messages:read, messages:write, account"})
		ts, err := e.Auth.ListAccessTokens(s.session)
		must(t, err)
		if len(ts) != 0 {
			t.Fatalf("a refused token was made: %+v", ts)
		}
	})
}

package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testErrorReplies holds every backend to the same reply, code and
// sentence to the letter, for each refusal whose rule lives in core
// (core/identity_records.go, core/message_records.go): a user reads these
// sentences, and a store copied to the other backend must answer alike.
func testErrorReplies(t *testing.T, s Stores) {
	ada := MustCreateUser(t, s, "ada@example.com")
	grace := MustCreateUser(t, s, "grace@example.com")
	now := s.Clock.Now()
	same := func(fn func(*core.User) error) func(string) (*core.User, error) {
		return func(id string) (*core.User, error) { return s.Users.UpdateUser(ctx, id, fn) }
	}
	m := NewMessage(s, ada.ID, core.Interval1M)
	m.IdempotencyKey = "key-1"
	must(t, s.Messages.CreateMessage(ctx, m, allow))
	x := &core.Session{UserID: ada.ID, RefreshHash: core.HashSecret(core.NewSecret()), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	must(t, s.Sessions.CreateSession(ctx, x))
	tok := &core.AccessToken{UserID: ada.ID, Name: "ci", Hash: core.HashSecret(core.NewSecret()), CreatedAt: now}
	must(t, s.Tokens.CreateAccessToken(ctx, tok))
	code := &core.ActionCode{Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeResetPassword, UserID: ada.ID,
		Email: ada.Email, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	must(t, s.ActionCodes.CreateActionCode(ctx, code))
	_, err := s.ActionCodes.UseActionCode(ctx, code.Hash, now)
	must(t, err)
	expiring := &core.ActionCode{Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeResetPassword, UserID: ada.ID,
		Email: ada.Email, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	must(t, s.ActionCodes.CreateActionCode(ctx, expiring))

	const (
		invalidCode = "auth/invalid-action-code: The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
		noUser      = "user/not-found: The user could not be found."
		noToken     = "token/not-found: The access token could not be found."
		noSession   = "request/not-found: The session could not be found."
		noMessage   = "message/not-found: The message could not be found."
	)
	cases := []struct {
		what, want string
		call       func() error
	}{
		{"a user id taken", "request/conflict: A user with this id already exists.", func() error {
			return s.Users.CreateUser(ctx, &core.User{ID: ada.ID, Email: "other@example.com", CreatedAt: now})
		}},
		{"an email in use", "auth/email-already-in-use: The email address is already in use by another account.", func() error {
			return s.Users.CreateUser(ctx, &core.User{Email: "ADA@example.com", CreatedAt: now})
		}},
		{"a user id too long", "request/invalid: The user id must be 1 to 255 bytes.", func() error {
			return s.Users.CreateUser(ctx, &core.User{ID: strings.Repeat("u", 256), Email: "long@example.com", CreatedAt: now})
		}},
		{"a user's id changed", "request/invalid: A user's id cannot change.", func() error {
			_, err := same(func(u *core.User) error { u.ID = "other"; return nil })(ada.ID)
			return err
		}},
		{"an unknown user", noUser, func() error { _, err := s.Users.FindUserByID(ctx, "nobody"); return err }},
		{"a Stripe customer taken", "request/conflict: The Stripe customer belongs to another user.", func() error {
			if _, err := same(func(u *core.User) error { u.StripeCustomerID = "cus_ada"; return nil })(ada.ID); err != nil {
				return err
			}
			_, err := same(func(u *core.User) error { u.StripeCustomerID = "cus_ada"; return nil })(grace.ID)
			return err
		}},

		{"a message id taken", "request/conflict: A message with this id already exists.", func() error {
			again := NewMessage(s, ada.ID, core.Interval1M)
			again.ID = m.ID
			return s.Messages.CreateMessage(ctx, again, allow)
		}},
		{"an Idempotency-Key used", "request/idempotency-key-used: A message was made with this Idempotency-Key already.", func() error {
			again := NewMessage(s, ada.ID, core.Interval1M)
			again.IdempotencyKey = m.IdempotencyKey
			return s.Messages.CreateMessage(ctx, again, allow)
		}},
		{"a message without an id", "request/invalid: The message id must be 1 to 255 bytes.", func() error {
			again := NewMessage(s, ada.ID, core.Interval1M)
			again.ID = ""
			return s.Messages.CreateMessage(ctx, again, allow)
		}},
		{"a message of no user", noUser, func() error { return s.Messages.CreateMessage(ctx, NewMessage(s, "nobody", core.Interval1M), allow) }},
		{"a message's id changed", "request/invalid: A message's id cannot change.", func() error {
			_, err := s.Messages.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.ID = "other"; return nil })
			return err
		}},
		{"an unknown message", noMessage, func() error { _, err := s.Messages.FindMessageByID(ctx, "nobody"); return err }},

		{"a session's id changed", "request/invalid: A session's id cannot change.", func() error {
			_, err := s.Sessions.UpdateSession(ctx, x.ID, func(x *core.Session) error { x.ID = "other"; return nil })
			return err
		}},
		{"a session id taken", "request/conflict: A session with this id already exists.", func() error {
			return s.Sessions.CreateSession(ctx, &core.Session{ID: x.ID, UserID: ada.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
		}},
		{"an unknown session", noSession, func() error { _, err := s.Sessions.FindSessionByID(ctx, "nobody"); return err }},
		{"an unknown refresh hash", noSession, func() error { _, _, err := s.Sessions.FindSessionByRefreshHash(ctx, "nope"); return err }},

		{"a token without a hash", "request/invalid: An access token needs a hash.", func() error {
			return s.Tokens.CreateAccessToken(ctx, &core.AccessToken{UserID: ada.ID, CreatedAt: now})
		}},
		{"a token id taken", "request/conflict: An access token with this id already exists.", func() error {
			return s.Tokens.CreateAccessToken(ctx, &core.AccessToken{ID: tok.ID, UserID: ada.ID, Hash: "other-hash", CreatedAt: now})
		}},
		{"a token hash taken", "request/conflict: Another access token has this hash.", func() error {
			return s.Tokens.CreateAccessToken(ctx, &core.AccessToken{UserID: ada.ID, Hash: tok.Hash, CreatedAt: now})
		}},
		{"a token's id changed", "request/invalid: An access token's id cannot change.", func() error {
			_, err := s.Tokens.UpdateAccessToken(ctx, tok.ID, func(t *core.AccessToken) error { t.ID = "other"; return nil })
			return err
		}},
		{"a token's hash cleared", "request/invalid: An access token needs a hash.", func() error {
			_, err := s.Tokens.UpdateAccessToken(ctx, tok.ID, func(t *core.AccessToken) error { t.Hash = ""; return nil })
			return err
		}},
		{"an unknown token hash", noToken, func() error { _, err := s.Tokens.FindAccessTokenByHash(ctx, "nope"); return err }},
		{"an unknown token deleted", noToken, func() error { return s.Tokens.DeleteAccessToken(ctx, "nobody") }},

		{"a code without a hash", "request/invalid: An action code needs a hash.", func() error {
			return s.ActionCodes.CreateActionCode(ctx, &core.ActionCode{Mode: core.ModeResetPassword, UserID: ada.ID})
		}},
		{"a code hash taken", "request/conflict: An action code with this hash already exists.", func() error {
			return s.ActionCodes.CreateActionCode(ctx, &core.ActionCode{Hash: code.Hash, Mode: core.ModeResetPassword, UserID: ada.ID})
		}},
		{"a code used twice", invalidCode, func() error { _, err := s.ActionCodes.UseActionCode(ctx, code.Hash, now); return err }},
		{"an unknown code", invalidCode, func() error { _, err := s.ActionCodes.FindActionCode(ctx, "nope"); return err }},
		{"a code expired", "auth/expired-action-code: The action code has expired.", func() error {
			_, err := s.ActionCodes.UseActionCode(ctx, expiring.Hash, expiring.ExpiresAt)
			return err
		}},

		{"a health record without a process", "request/invalid: A health record needs a process name.", func() error {
			return s.Health.PutProcessHealth(ctx, &core.ProcessHealth{SeenAt: now})
		}},
	}
	if s.Links != nil {
		l := newLink(s, core.ProviderGitHub, "gh-ada")
		l.UserID = ada.ID
		_, err := s.Links.LinkProvider(ctx, l, func(*core.User, []*core.ProviderLink) error { return nil })
		must(t, err)
		link := func(userID, provider, subject string) func() error {
			return func() error {
				l := newLink(s, provider, subject)
				l.UserID = userID
				_, err := s.Links.LinkProvider(ctx, l, func(*core.User, []*core.ProviderLink) error { return nil })
				return err
			}
		}
		cases = append(cases, []struct {
			what, want string
			call       func() error
		}{
			{"a provider account linked to another user", "auth/credential-already-in-use: This GitHub account is linked to another account.",
				link(grace.ID, core.ProviderGitHub, "gh-ada")},
			{"a second link of one provider", "request/conflict: A GitHub account is linked already.",
				link(ada.ID, core.ProviderGitHub, "gh-ada-2")},
			{"a provider account id too long", "request/invalid: The provider account id must be 1 to 255 bytes.",
				link(ada.ID, core.ProviderGoogle, strings.Repeat("g", 256))},
			{"a link's user changed", "request/invalid: A link's provider account and user cannot change.", func() error {
				_, err := s.Links.UpdateProviderLink(ctx, core.ProviderGitHub, "gh-ada", func(l *core.ProviderLink) error {
					l.UserID = grace.ID
					return nil
				})
				return err
			}},
			{"an unknown link", "request/not-found: The linked account could not be found.", func() error {
				_, err := s.Links.FindProviderLink(ctx, core.ProviderGitHub, "nobody")
				return err
			}},
		}...)
	}
	if s.Delivery != nil {
		cases = append(cases, struct {
			what, want string
			call       func() error
		}{"an unknown outbox item", "request/not-found: The outbox item could not be found.", func() error {
			_, err := s.Delivery.FindOutboxItem(ctx, "nobody")
			return err
		}})
	}
	for _, c := range cases {
		err := c.call()
		if got := core.ErrorCode(err) + ": " + core.ErrorMessage(err); got != c.want {
			t.Errorf("%s: the reply is %q (%v), want %q", c.what, got, err, c.want)
		}
	}
}

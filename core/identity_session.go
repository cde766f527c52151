package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// Sessions: their tokens, what proves who acts, and their end.

// startSession is the one way into a session of every sign-in (password,
// sign-up, social, claim): for an account with a second factor it makes no
// session but a challenge (identity_twostep.go), which only
// CompleteSecondFactor turns into one.
func (a *Auth) startSession(ctx context.Context, u *User, c Client) (*Tokens, error) {
	if u.Disabled() {
		return nil, errUserDisabled()
	}
	if u.HasSecondFactor() {
		return a.secondFactorChallenge(ctx, u)
	}
	return a.openSession(ctx, u, c)
}

// openSession creates a session for u and its first tokens: only
// startSession, CompleteSecondFactor and a passkey's sign-in (both factors
// in one) call it.
func (a *Auth) openSession(ctx context.Context, u *User, c Client) (*Tokens, error) {
	if u.Disabled() {
		return nil, errUserDisabled()
	}
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	refresh := NewSecret()
	ua := c.UserAgent
	if len(ua) > maxUserAgentLen {
		ua = strings.ToValidUTF8(ua[:maxUserAgentLen], "")
	}
	s := &Session{
		ID:          NewID(),
		UserID:      u.ID,
		RefreshHash: HashSecret(refresh),
		AuthTime:    now,
		CreatedAt:   now,
		LastUsedAt:  now,
		ExpiresAt:   now.Add(min(SessionIdleTTL, SessionMaxAge)),
		UserAgent:   ua,
		Network:     SignInNetwork(c.Address),
	}
	if err := a.Sessions.CreateSession(ctx, s); err != nil {
		return nil, err
	}
	a.noteSignIn(ctx, u, s)
	return a.issueWithUser(ctx, u, s, now, refresh)
}

// issue signs an ID token for the session.
func (a *Auth) issue(u *User, s *Session, now time.Time) *Tokens {
	exp := now.Add(IDTokenTTL)
	tok := SignIDToken(a.SigningKey, IDTokenClaims{
		UserID:    u.ID,
		SessionID: s.ID,
		AuthTime:  s.AuthTime.Unix(),
		IssuedAt:  now.Unix(),
		ExpiresAt: exp.Unix(),
	})
	return &Tokens{IDToken: tok, ExpiresAt: exp, RefreshExpiresAt: s.ExpiresAt}
}

// issueWithUser is issue with a new refresh token and the user it signed in.
func (a *Auth) issueWithUser(ctx context.Context, u *User, s *Session, now time.Time, refresh string) (*Tokens, error) {
	t := a.issue(u, s, now)
	su, err := a.sessionUser(ctx, u)
	if err != nil {
		return nil, err
	}
	t.RefreshToken, t.User, t.Session = refresh, u, su
	return t, nil
}

func (a *Auth) checkKey() error {
	if len(a.SigningKey) < MinSigningKeyLen {
		return Errorf(EInternal, "the ID token signing key must be at least %d bytes", MinSigningKeyLen)
	}
	return nil
}

// errRefreshReused aborts the rotation of a refresh token that another
// request rotated first.
var errRefreshReused = Errorf(EInvalidToken, "refresh token reused")

// successor is the refresh token that follows token: a keyed hash of it,
// so that a token presented again within RefreshGrace gets the very token
// it got the first time, and only the server can tell what follows what.
func (a *Auth) successor(token string) string {
	mac := hmac.New(sha256.New, DeriveKey(a.SigningKey, PurposeRefreshChain))
	mac.Write([]byte(token))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// sessionExpiry is when a session used at now ends: SessionIdleTTL later,
// and never after SessionMaxAge from its start.
func sessionExpiry(s *Session, now time.Time) time.Time {
	idle, end := now.Add(SessionIdleTTL), s.CreatedAt.Add(SessionMaxAge)
	if s.CreatedAt.IsZero() || idle.Before(end) {
		return idle
	}
	return end
}

// Refresh exchanges a refresh token for a new ID token and a new refresh
// token. The same token presented again within RefreshGrace of its
// exchange (a retry after a lost reply, or two tabs at once) gets the same
// new pair; presented later, it ends the whole session: either its owner
// or a thief holds a copy, and it cannot tell which.
func (a *Auth) Refresh(ctx context.Context, refreshToken string) (*Tokens, error) {
	a.init()
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	if refreshToken == "" {
		return nil, errInvalidToken()
	}
	hash, next := HashSecret(refreshToken), a.successor(refreshToken)
	s, rotated, err := a.Sessions.FindSessionByRefreshHash(ctx, hash)
	if err != nil {
		return nil, tokenError(err)
	}
	now := a.Clock.Now()
	if rotated || !now.Before(s.ExpiresAt) {
		return a.refreshAgain(ctx, s, next, now)
	}
	sid := s.ID
	s, err = a.Sessions.UpdateSession(ctx, sid, func(s *Session) error {
		if s.RefreshHash != hash {
			return errRefreshReused
		}
		s.RotatedHashes = append(s.RotatedHashes, hash)
		if n := len(s.RotatedHashes); n > maxRotatedHashes {
			s.RotatedHashes = append([]string(nil), s.RotatedHashes[n-maxRotatedHashes:]...)
		}
		s.RefreshHash = HashSecret(next)
		s.RefreshedAt, s.LastUsedAt = now, now
		s.ExpiresAt = sessionExpiry(s, now)
		return nil
	})
	if errors.Is(err, errRefreshReused) {
		if s, err = a.Sessions.FindSessionByID(ctx, sid); err != nil {
			return nil, tokenError(err)
		}
		return a.refreshAgain(ctx, s, next, now)
	}
	if err != nil {
		return nil, tokenError(err)
	}
	u, err := a.Users.FindUserByID(ctx, s.UserID)
	if err != nil {
		return nil, tokenError(err)
	}
	return a.issueWithUser(ctx, u, s, now, next)
}

// refreshAgain answers a refresh token that was exchanged already: within
// RefreshGrace of the exchange, while what it was exchanged for is still
// the session's current token, the same pair as the first time (the ID
// token issued at the exchange); otherwise it ends the session.
func (a *Auth) refreshAgain(ctx context.Context, s *Session, next string, now time.Time) (*Tokens, error) {
	if s.RefreshHash != HashSecret(next) || now.Sub(s.RefreshedAt) > RefreshGrace || !now.Before(s.ExpiresAt) {
		return nil, a.endSession(ctx, s.ID)
	}
	u, err := a.Users.FindUserByID(ctx, s.UserID)
	if err != nil {
		return nil, tokenError(err)
	}
	return a.issueWithUser(ctx, u, s, s.RefreshedAt, next)
}

// endSession deletes a session that must not go on and answers
// auth/invalid-user-token.
func (a *Auth) endSession(ctx context.Context, id string) error {
	if err := a.Sessions.DeleteSession(ctx, id); err != nil && ErrorCode(err) != ENotFound {
		return err
	}
	return errInvalidToken()
}

// tokenError turns a store's not-found into auth/invalid-user-token.
func tokenError(err error) error {
	switch ErrorCode(err) {
	case ENotFound, EUserNotFound, ETokenNotFound, EInvalidToken:
		return errInvalidToken()
	}
	return err
}

// VerifyIdentity tells whether the identity in ctx still holds: its ID token
// unexpired and its session not ended, its access token not revoked, the
// user an operator acts for not deleted. A long-lived reply (the live list)
// asks again and again; any failure is auth/invalid-user-token.
func (a *Auth) VerifyIdentity(ctx context.Context) error {
	id, err := signedIn(ctx)
	if err != nil {
		return err
	}
	switch {
	case id.SessionID != "":
		if !id.ExpiresAt.IsZero() && !a.Clock.Now().Before(id.ExpiresAt) {
			return errInvalidToken()
		}
		_, err = a.checkSession(ctx, id)
		return err
	case id.TokenID != "":
		ts, err := a.AccessTokens.ListAccessTokens(ctx, id.UserID)
		if err != nil {
			return err
		}
		for _, t := range ts {
			if t.ID == id.TokenID {
				return nil
			}
		}
		return errInvalidToken()
	}
	_, err = a.User(ctx)
	return err
}

// RequireRecentLogin answers auth/requires-recent-login unless the identity
// in ctx is a session signed in or re-authenticated within
// RecentLoginWindow. Personal access tokens are never a recent login (one
// without the account scope is told that first), and an operator acting
// for a user is refused.
func (a *Auth) RequireRecentLogin(ctx context.Context) error {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return err
	}
	if id.Operator != "" {
		return errOperator()
	}
	if id.SessionID == "" || a.Clock.Now().Sub(id.AuthTime) > RecentLoginWindow {
		return Errorf(ERequiresRecentLogin, "Please sign in again to complete this action.")
	}
	return nil
}

// SignOut ends the session of the identity in ctx, or revokes the personal
// access token it used.
func (a *Auth) SignOut(ctx context.Context) error {
	id, err := signedIn(ctx)
	switch {
	case err != nil:
		return err
	case id.Operator != "":
		return errOperator()
	case id.SessionID == "":
		return a.deleteAccessToken(ctx, id.TokenID)
	}
	if err := a.Sessions.DeleteSession(ctx, id.SessionID); err != nil && ErrorCode(err) != ENotFound {
		return err
	}
	return nil
}

// Reauth checks the user's password again and makes the session of the
// identity in ctx a recent login. It returns a new ID token; the refresh
// token is unchanged.
func (a *Auth) Reauth(ctx context.Context, password string, c Client) (*Tokens, error) {
	a.init()
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	if password == "" {
		return nil, ValidationError(map[string]string{"password": "Please enter your password"})
	}
	if id.Operator != "" {
		return nil, errOperator()
	}
	if id.SessionID == "" {
		return nil, Errorf(ERequiresRecentLogin, "Personal access tokens cannot sign in again; use the web app.")
	}
	u, err := a.User(ctx)
	if err != nil {
		return nil, err
	}
	if u.PasswordHash == "" {
		return nil, Errorf(EWrongCredentials, "This account has no password; sign in with %s.", firstProvider(u))
	}
	if _, err := a.checkPassword(ctx, u.Email, password, c, false); err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	s, err := a.Sessions.UpdateSession(ctx, id.SessionID, func(s *Session) error {
		s.AuthTime = now
		s.LastUsedAt = now
		return nil
	})
	if err != nil {
		return nil, tokenError(err)
	}
	return a.issue(u, s, now), nil
}

func firstProvider(u *User) string {
	if len(u.Providers) > 0 {
		return u.Providers[0]
	}
	return "your provider"
}

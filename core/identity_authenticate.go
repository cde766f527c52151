package core

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Authenticating a request's bearer token: the token, its session, and
// what is kept of both between requests.

// Authenticate checks a bearer token: an ID token whose session still exists
// or a personal access token. Revoked, expired and unknown tokens are
// auth/invalid-user-token.
func (a *Auth) Authenticate(ctx context.Context, bearer string) (*Identity, error) {
	a.init()
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	if a.Tracer != nil && a.Tracer.Traced(ctx) {
		// The token's and the session's lookups are part of the request's
		// span, not spans of their own (docs/ops.md).
		ctx = WithoutStoreSpans(ctx)
	}
	if strings.HasPrefix(bearer, AccessTokenPrefix) {
		return a.authenticateAccessToken(ctx, bearer)
	}
	now := a.Clock.Now() // one reading for the token, the session and its last use
	t, err := a.verifyIDToken(bearer, now)
	if err != nil {
		return nil, err
	}
	c := &t.claims
	id := &Identity{UserID: c.UserID, SessionID: c.SessionID, ExpiresAt: time.Unix(c.ExpiresAt, 0)}
	gens, keeps := a.Sessions.(UserGenerations)
	if seen := t.seen.Load(); keeps && seen != nil && seen.gen == gens.UserGeneration(c.UserID) {
		// The session as this token last found it, its user's sessions
		// unwritten since (sessionSeen); its expiry is checked at every use.
		if !now.Before(seen.expiry) {
			return nil, errInvalidToken()
		}
		a.touchSession(ctx, c.SessionID, seen.lastUsed, now)
		id.AuthTime = seen.authTime
		return id, nil
	}
	s, gen, err := a.checkSessionGen(ctx, id, now)
	if err != nil {
		return nil, err
	}
	if keeps {
		t.seen.Store(&sessionSeen{gen: gen, authTime: s.AuthTime, lastUsed: s.LastUsedAt, expiry: s.ExpiresAt})
	}
	a.touchSession(ctx, s.ID, s.LastUsedAt, now)
	id.AuthTime = s.AuthTime
	return id, nil
}

// checkSession finds the session of a session identity, which must still be
// its user's and unexpired.
//
// With a store that keeps generations, a session found is kept under its
// user's generation, read before the store: every write of the user's
// sessions (sign-out, password change, refresh reuse, an operator's
// disable, deletion) moves it once committed, so the next check reads the
// store again; the expiry is checked at every use. The session is
// returned as a value that may share its RotatedHashes with the kept one:
// read them, never change them.
func (a *Auth) checkSession(ctx context.Context, id *Identity) (Session, error) {
	return a.checkSessionAt(ctx, id, a.Clock.Now())
}

// checkSessionAt is checkSession at now.
func (a *Auth) checkSessionAt(ctx context.Context, id *Identity, now time.Time) (Session, error) {
	s, _, err := a.checkSessionGen(ctx, id, now)
	return s, err
}

// checkSessionGen is checkSessionAt, with the user's generation read before
// the session was (zero when Sessions keeps none).
func (a *Auth) checkSessionGen(ctx context.Context, id *Identity, now time.Time) (Session, uint64, error) {
	gens, keeps := a.Sessions.(UserGenerations)
	var gen uint64
	if keeps {
		gen = gens.UserGeneration(id.UserID)
		if s, ok := a.checked.Get(id.SessionID, gen); ok && s.UserID == id.UserID {
			if !now.Before(s.ExpiresAt) {
				return Session{}, 0, errInvalidToken()
			}
			return s, gen, nil
		}
	}
	s, err := a.Sessions.FindSessionByID(ctx, id.SessionID)
	if err != nil {
		return Session{}, 0, tokenError(err)
	}
	if s.UserID != id.UserID || !now.Before(s.ExpiresAt) {
		return Session{}, 0, errInvalidToken()
	}
	if keeps {
		kept := *s
		kept.RotatedHashes = slices.Clone(s.RotatedHashes)
		a.checked.Put(id.SessionID, gen, kept)
	}
	return *s, gen, nil
}

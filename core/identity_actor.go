package core

import (
	"context"
	"sync/atomic"
	"time"
)

// Identity is who acts: a user signed in through an ID token (a session) or
// a personal access token, or an operator acting for a user through the
// admin socket. It travels in ctx (WithIdentity): every author-side service
// method learns who acts from there and from nowhere else.
type Identity struct {
	UserID    string
	SessionID string // the session of an ID token; empty otherwise
	TokenID   string // the personal access token, if that is how
	// Scopes are what the access token may do (core/identity_scopes.go); a session
	// or an operator may do anything, whatever Scopes says.
	Scopes   []string
	AuthTime time.Time // last sign-in or re-auth of the session; zero otherwise
	// ExpiresAt is when the ID token that proved the session expires; zero
	// for access tokens and operators.
	ExpiresAt time.Time
	// Operator names the operator acting for UserID (the admin socket), so
	// that what they do can be told from what the user does; empty when the
	// user acts.
	Operator string
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentitySlot is the identity of one request, set after its context was
// made: a server puts an empty slot in the context as the request comes in
// (WithIdentitySlot) and sets it once the request's token is checked,
// instead of copying the request for a context with the identity. A slot
// belongs to one request and is never reused, so no identity outlives its
// request; until Set, the context carries no identity.
type IdentitySlot struct{ id atomic.Pointer[Identity] }

// Set makes id the identity of the slot's context.
func (s *IdentitySlot) Set(id *Identity) { s.id.Store(id) }

// WithIdentitySlot returns ctx carrying the identity s will hold. It hides
// any identity ctx carried before; WithIdentity on top of it hides it.
func WithIdentitySlot(ctx context.Context, s *IdentitySlot) context.Context {
	return context.WithValue(ctx, identityKey{}, s)
}

// Value is what a context carrying s holds for key: s itself under the
// identity's key (ok), nothing under any other. A server whose own context
// type carries the slot (one value per request instead of a layer of
// context.WithValue) answers its Value with it; the identity is then the
// slot's, as with WithIdentitySlot.
func (s *IdentitySlot) Value(key any) (v any, ok bool) {
	if _, ok := key.(identityKey); ok {
		return s, true
	}
	return nil, false
}

// IdentityFrom returns the identity in ctx, or nil.
func IdentityFrom(ctx context.Context) *Identity {
	switch v := ctx.Value(identityKey{}).(type) {
	case *Identity:
		return v
	case *IdentitySlot:
		return v.id.Load()
	}
	return nil
}

// signedIn returns the identity in ctx; without one the caller is not
// signed in: auth/invalid-user-token.
func signedIn(ctx context.Context) (*Identity, error) {
	id := IdentityFrom(ctx)
	if id == nil || id.UserID == "" {
		return nil, Errorf(EInvalidToken, "Please sign in.")
	}
	return id, nil
}

// errOperator refuses what only the user may do: sign in again, change the
// password or the email, delete the account, make a personal access token.
func errOperator() error {
	return Errorf(EOperatorNotAllowed, "An operator acting for a user cannot do this; only the user can.")
}

// signedInUser returns the user of the identity in ctx; a user that is gone
// is auth/invalid-user-token.
func signedInUser(ctx context.Context, users UserStore) (*User, error) {
	id, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	u, err := users.FindUserByID(ctx, id.UserID)
	if err != nil {
		return nil, tokenError(err)
	}
	return u, nil
}

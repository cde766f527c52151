package core

import (
	"context"
	"slices"
	"strings"
)

// The scopes of a personal access token: what it may do. A session (a sign-in
// with a password or a provider) and an operator acting for a user have
// every scope; a token has the scopes chosen when it was made.
const (
	// ScopeMessagesRead reads the author's messages: the list, the live
	// list, one message, its timeline, previews that store nothing.
	ScopeMessagesRead = "messages:read"
	// ScopeMessagesWrite changes them: create, update, postpone, delete,
	// send a test, hold and end a hold.
	ScopeMessagesWrite = "messages:write"
	// ScopeAccount reads and changes the account beyond who it is: the
	// profile and settings, the access tokens, the export, billing, the
	// linked providers, the webhook secret, the email verification. Making a
	// token, changing the password or deleting the account also need a
	// recent sign-in, which a token never is.
	ScopeAccount = "account"
)

// AllScopes are every scope, in the order lists show them: what a session
// has, and what a token made before scopes existed keeps.
var AllScopes = []string{ScopeMessagesRead, ScopeMessagesWrite, ScopeAccount}

// DefaultScopes are the scopes of a token made without choosing any:
// read-only.
var DefaultScopes = []string{ScopeMessagesRead}

// Can tells whether the identity may do what scope allows: a session or an
// operator may do anything, a personal access token what its scopes say.
func (id *Identity) Can(scope string) bool {
	return id.TokenID == "" || slices.Contains(id.Scopes, scope)
}

// authorized returns the identity in ctx when it may do what scope allows;
// without one the caller is not signed in (auth/invalid-user-token), and a
// token without the scope is auth/insufficient-scope.
func authorized(ctx context.Context, scope string) (*Identity, error) {
	id, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	if !id.Can(scope) {
		return nil, errInsufficientScope(scope)
	}
	return id, nil
}

// RequireScope answers as a service method would when the identity in ctx
// may not do what scope allows: for a front end that answers from what it
// kept of an earlier call (web's kept replies) instead of calling again.
func RequireScope(ctx context.Context, scope string) error {
	_, err := authorized(ctx, scope)
	return err
}

func errInsufficientScope(scope string) error {
	return Errorf(EInsufficientScope, "This access token may not do this: it needs the %q scope. Make a new token that has it.", scope)
}

// tokenScopes checks the scopes asked for a new token: nil is DefaultScopes;
// otherwise at least one, each known, returned once each in AllScopes'
// order.
func tokenScopes(scopes []string) ([]string, error) {
	if scopes == nil {
		return slices.Clone(DefaultScopes), nil
	}
	if len(scopes) == 0 {
		return nil, ValidationError(map[string]string{"scopes": "Choose at least one scope: " + strings.Join(AllScopes, ", ")})
	}
	for _, s := range scopes {
		if !slices.Contains(AllScopes, s) {
			return nil, ValidationError(map[string]string{"scopes": "Each scope must be one of " + strings.Join(AllScopes, ", ")})
		}
	}
	out := make([]string, 0, len(AllScopes))
	for _, s := range AllScopes {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

package core

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of personal access tokens.
const (
	MaxTokenNameLen     = 100
	MaxAccessTokens     = 50
	AccessTokenPrefix   = "sl_pat_"
	tokenLastUsedStride = 5 * time.Minute // LastUsedAt is written at most this often
)

// AccessTokenInfo is a personal access token as its owner sees it: without
// its secret or the secret's hash.
type AccessTokenInfo struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used
	// Scopes are what the token may do, in AllScopes' order.
	Scopes []string
	// MadeBeforeScopes is a token made before tokens had scopes: it keeps
	// every scope (Scopes is AllScopes), so that no script or TUI that uses
	// one stops working; its owner may replace it with a narrower one.
	MadeBeforeScopes bool
}

// Info returns the token without its hash.
func (t *AccessToken) Info() AccessTokenInfo {
	return AccessTokenInfo{
		ID: t.ID, Name: t.Name, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt,
		Scopes: t.scopes(), MadeBeforeScopes: t.Scopes == nil,
	}
}

// scopes are what the token may do: a token made before scopes may do
// anything.
func (t *AccessToken) scopes() []string {
	if t.Scopes == nil {
		return slices.Clone(AllScopes)
	}
	return slices.Clone(t.Scopes)
}

// CreateAccessToken makes a personal access token named name, that may do
// what scopes allow (nil: DefaultScopes, read-only), for the identity in ctx
// and returns it with its secret, which is shown this once. A token is a
// long-lived key to the account, so making one needs a recent login.
func (a *Auth) CreateAccessToken(ctx context.Context, name string, scopes []string) (AccessTokenInfo, string, error) {
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return AccessTokenInfo{}, "", err
	}
	name = strings.TrimSpace(name)
	if err := checkTokenName("name", name); err != nil {
		return AccessTokenInfo{}, "", err
	}
	scopes, err := tokenScopes(scopes)
	if err != nil {
		return AccessTokenInfo{}, "", err
	}
	if err := a.RequireRecentLogin(ctx); err != nil {
		return AccessTokenInfo{}, "", err
	}
	return a.mintAccessToken(ctx, IdentityFrom(ctx).UserID, name, scopes)
}

// mintAccessToken makes the user's token of a checked name and scopes:
// CreateAccessToken's, and the device flow's once its owner approved it.
func (a *Auth) mintAccessToken(ctx context.Context, userID, name string, scopes []string) (AccessTokenInfo, string, error) {
	ts, err := a.AccessTokens.ListAccessTokens(ctx, userID)
	if err != nil {
		return AccessTokenInfo{}, "", err
	}
	if len(ts) >= MaxAccessTokens {
		return AccessTokenInfo{}, "", Errorf(EConflict, "You have %d access tokens, the most there may be. Revoke one first.", MaxAccessTokens)
	}
	secret := AccessTokenPrefix + NewSecret()
	t := &AccessToken{
		ID:        NewID(),
		UserID:    userID,
		Name:      name,
		Hash:      HashSecret(secret),
		CreatedAt: a.Clock.Now(),
		Scopes:    scopes,
	}
	if err := a.AccessTokens.CreateAccessToken(ctx, t); err != nil {
		return AccessTokenInfo{}, "", err
	}
	return t.Info(), secret, nil
}

// checkTokenName checks a token's name, given in field.
func checkTokenName(field, name string) error {
	switch {
	case name == "":
		return ValidationError(map[string]string{field: "Please enter a name for the token"})
	case utf8.RuneCountInString(name) > MaxTokenNameLen || strings.ContainsAny(name, "\r\n"):
		return ValidationError(map[string]string{field: "The name must be one line of at most 100 characters"})
	case hasHiddenChars(name):
		return ValidationError(map[string]string{field: "The name" + hiddenCharsRule})
	}
	return nil
}

// ListAccessTokens lists the personal access tokens of the identity in ctx.
func (a *Auth) ListAccessTokens(ctx context.Context) ([]AccessTokenInfo, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	ts, err := a.AccessTokens.ListAccessTokens(ctx, id.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]AccessTokenInfo, len(ts))
	for i, t := range ts {
		out[i] = t.Info()
	}
	return out, nil
}

// RevokeAccessToken deletes one of the personal access tokens of the
// identity in ctx. Another user's token is not found. A token may always
// revoke itself (as SignOut does); another token needs the account scope.
func (a *Auth) RevokeAccessToken(ctx context.Context, tokenID string) error {
	id, err := signedIn(ctx)
	if err != nil {
		return err
	}
	if tokenID != id.TokenID && !id.Can(ScopeAccount) {
		return errInsufficientScope(ScopeAccount)
	}
	ts, err := a.AccessTokens.ListAccessTokens(ctx, id.UserID)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if t.ID == tokenID {
			return a.deleteAccessToken(ctx, t.ID)
		}
	}
	return ErrTokenNotFound()
}

func (a *Auth) deleteAccessToken(ctx context.Context, tokenID string) error {
	err := a.AccessTokens.DeleteAccessToken(ctx, tokenID)
	if ErrorCode(err) == ETokenNotFound {
		return ErrTokenNotFound()
	}
	return err
}

// authenticateAccessToken checks a personal access token and notes its use.
func (a *Auth) authenticateAccessToken(ctx context.Context, secret string) (*Identity, error) {
	t, err := a.AccessTokens.FindAccessTokenByHash(ctx, HashSecret(secret))
	if err != nil {
		return nil, tokenError(err)
	}
	now := a.Clock.Now()
	// Writing on every request would make each one a write transaction.
	if now.Sub(t.LastUsedAt) >= tokenLastUsedStride {
		_, err := a.AccessTokens.UpdateAccessToken(ctx, t.ID, func(t *AccessToken) error {
			t.LastUsedAt = now
			return nil
		})
		if err != nil {
			return nil, tokenError(err)
		}
	}
	return &Identity{UserID: t.UserID, TokenID: t.ID, Scopes: t.scopes()}, nil
}

package core

import (
	"context"
	"strings"
	"time"
)

// Passkeys for the signed-in user, and signing in with one. The
// ceremonies are Auth.Ceremonies (passkey/); the records Auth.Passkeys.

// PasskeyInfo is a passkey as its owner's list shows it.
type PasskeyInfo struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time
	Synced     bool // backed up by its provider (BackupState)
}

// limitPasskeyState makes a sign-in ceremony's state good for one reply:
// a reply replayed within the state's life finds its place taken, even
// from an authenticator that keeps no counter.
var limitPasskeyState = Limit{"passkey-state", 1, 10 * time.Minute}

func passkeyInfo(p *Passkey) PasskeyInfo {
	return PasskeyInfo{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt, LastUsedAt: p.LastUsedAt, Synced: p.BackupState}
}

func (a *Auth) passkeysOn() error {
	if a.Passkeys == nil || a.Ceremonies == nil {
		return Errorf(EUnavailable, "Passkeys are not available on this server.")
	}
	return nil
}

// PasskeysEnabled tells whether passkeys work here: a store for them and a
// relying party (a base_url that can be one).
func (a *Auth) PasskeysEnabled() bool { return a.passkeysOn() == nil }

// passkeyOwner is the user of the identity in ctx who may change their
// passkeys: a session with a recent login, not an operator.
func (a *Auth) passkeyOwner(ctx context.Context) (*User, error) {
	if err := a.passkeysOn(); err != nil {
		return nil, err
	}
	if err := a.RequireRecentLogin(ctx); err != nil {
		return nil, err
	}
	return a.User(ctx)
}

// BeginPasskeyRegistration starts adding a passkey to the signed-in
// user's account (a recent login): the browser's options and the state
// to give back.
func (a *Auth) BeginPasskeyRegistration(ctx context.Context) (options []byte, state string, err error) {
	u, err := a.passkeyOwner(ctx)
	if err != nil {
		return nil, "", err
	}
	existing, err := a.Passkeys.ListUserPasskeys(ctx, u.ID)
	if err != nil {
		return nil, "", err
	}
	if len(existing) >= MaxPasskeys {
		return nil, "", Errorf(EInvalid, "An account may have at most %d passkeys: remove one first.", MaxPasskeys)
	}
	return a.Ceremonies.BeginRegistration(u, existing)
}

// FinishPasskeyRegistration checks the browser's reply and stores the
// passkey, named name.
func (a *Auth) FinishPasskeyRegistration(ctx context.Context, state string, response []byte, name string) (PasskeyInfo, error) {
	u, err := a.passkeyOwner(ctx)
	if err != nil {
		return PasskeyInfo{}, err
	}
	existing, err := a.Passkeys.ListUserPasskeys(ctx, u.ID)
	if err != nil {
		return PasskeyInfo{}, err
	}
	p, err := a.Ceremonies.FinishRegistration(u, existing, state, response, name)
	if err != nil {
		a.log().Info("a passkey registration failed", "uid", u.ID, "err", err)
		return PasskeyInfo{}, err
	}
	if err := a.Passkeys.CreatePasskey(ctx, p); err != nil {
		return PasskeyInfo{}, err
	}
	a.log().Info("passkey added", "uid", u.ID, "passkey", p.ID)
	return passkeyInfo(p), nil
}

// ListPasskeys lists the signed-in user's passkeys (account scope).
func (a *Auth) ListPasskeys(ctx context.Context) ([]PasskeyInfo, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	if err := a.passkeysOn(); err != nil {
		return nil, err
	}
	ps, err := a.Passkeys.ListUserPasskeys(ctx, id.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]PasskeyInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, passkeyInfo(p))
	}
	return out, nil
}

// RemovePasskey deletes one of the signed-in user's passkeys (a recent
// login); another user's is not found.
func (a *Auth) RemovePasskey(ctx context.Context, id string) error {
	u, err := a.passkeyOwner(ctx)
	if err != nil {
		return err
	}
	if err := a.Passkeys.DeletePasskey(ctx, u.ID, id); err != nil {
		return err
	}
	a.log().Info("passkey removed", "uid", u.ID, "passkey", id)
	return nil
}

// BeginPasskeySignIn starts a sign-in with a passkey: anyone may ask.
func (a *Auth) BeginPasskeySignIn(ctx context.Context, conditional bool) (options []byte, state string, err error) {
	if err := a.passkeysOn(); err != nil {
		return nil, "", err
	}
	return a.Ceremonies.BeginLogin(conditional)
}

// PasskeySignIn checks the browser's reply and signs its user in: a
// passkey is a whole sign-in (something held and a verified user). Failures
// count against the client, as wrong passwords do.
func (a *Auth) PasskeySignIn(ctx context.Context, state string, response []byte, c Client) (*Tokens, error) {
	a.init()
	if err := a.passkeysOn(); err != nil {
		return nil, err
	}
	if err := a.checkClient(ctx, c.Address); err != nil {
		return nil, err
	}
	u, err := a.usePasskey(ctx, state, response, "")
	if err != nil {
		if ErrorCode(err) == EWrongCredentials {
			if cerr := a.countClient(ctx, c.Address); cerr != nil {
				return nil, cerr
			}
		}
		return nil, err
	}
	// The passkey verified its user (something held and something known or
	// been): both factors, so no code is asked even with the app on.
	return a.openSession(ctx, u, c)
}

func errPasskeyRefused() error {
	return Errorf(EWrongCredentials, "This passkey could not sign you in.")
}

// usePasskey checks a sign-in ceremony's reply (state, response) and
// returns the passkey's user; with userID set, only a passkey of that user
// passes. The state is good for one reply, and the passkey's counter and
// last use are stored before anything else, so a replayed reply finds the
// counter moved. Any refusal is EWrongCredentials.
func (a *Auth) usePasskey(ctx context.Context, state string, response []byte, userID string) (*User, error) {
	wait, err := a.Limits.Take(ctx, LimitTake{limitPasskeyState, HashSecret(state)})
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		return nil, errPasskeyRefused()
	}
	find := func(handle string) (*User, []*Passkey, error) {
		if userID != "" && handle != userID {
			return nil, nil, Errorf(ENotFound, "not the user of this sign-in")
		}
		u, err := a.Users.FindUserByID(ctx, handle)
		if err != nil {
			return nil, nil, err
		}
		ps, err := a.Passkeys.ListUserPasskeys(ctx, handle)
		return u, ps, err
	}
	u, used, err := a.Ceremonies.FinishLogin(state, response, find)
	if err != nil {
		a.log().Info("a passkey sign-in failed", "err", err)
		return nil, errPasskeyRefused()
	}
	_, err = a.Passkeys.UpdatePasskey(ctx, used.ID, func(p *Passkey) error {
		if used.SignCount != 0 && used.SignCount <= p.SignCount {
			return errPasskeyRefused()
		}
		p.SignCount, p.BackupState, p.LastUsedAt = used.SignCount, used.BackupState, used.LastUsedAt
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// RenamePasskey renames one of the signed-in user's passkeys (the rule of
// every name); another user's is not found. A name is no factor, so no
// recent login is needed, but an operator may not.
func (a *Auth) RenamePasskey(ctx context.Context, id, name string) (PasskeyInfo, error) {
	who, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return PasskeyInfo{}, err
	}
	if who.Operator != "" {
		return PasskeyInfo{}, errOperator()
	}
	if err := a.passkeysOn(); err != nil {
		return PasskeyInfo{}, err
	}
	p, err := a.Passkeys.UpdatePasskey(ctx, id, func(p *Passkey) error {
		if p.UserID != who.UserID {
			return Errorf(ENotFound, "This passkey does not exist.")
		}
		p.Name = strings.TrimSpace(name)
		return nil
	})
	if err != nil {
		return PasskeyInfo{}, err
	}
	return passkeyInfo(p), nil
}

// PasskeyAccounts is what front ends do with passkeys; Auth implements it.
type PasskeyAccounts interface {
	BeginPasskeyRegistration(ctx context.Context) (options []byte, state string, err error)
	FinishPasskeyRegistration(ctx context.Context, state string, response []byte, name string) (PasskeyInfo, error)
	ListPasskeys(ctx context.Context) ([]PasskeyInfo, error)
	RemovePasskey(ctx context.Context, id string) error
	BeginPasskeySignIn(ctx context.Context, conditional bool) (options []byte, state string, err error)
	PasskeySignIn(ctx context.Context, state string, response []byte, c Client) (*Tokens, error)
	RenamePasskey(ctx context.Context, id, name string) (PasskeyInfo, error)
	CompleteSecondFactorWithPasskey(ctx context.Context, token, state string, response []byte, c Client) (*Tokens, error)
}

var _ PasskeyAccounts = (*Auth)(nil)

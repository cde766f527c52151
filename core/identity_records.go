package core

import "time"

// The rules of the identity records that hold whatever the store: the
// errors every store returns, in one spelling, and the checks a store makes
// before it writes a record. The stores keep only storage (rows, buckets,
// indexes, transactions) and call these.

// ErrUserNotFound is a user no store holds.
func ErrUserNotFound() error { return Errorf(EUserNotFound, "The user could not be found.") }

// ErrEmailInUse is an email address another user holds, whatever its case.
func ErrEmailInUse() error {
	return Errorf(EEmailInUse, "The email address is already in use by another account.")
}

// ErrUserExists is a new user whose id is taken.
func ErrUserExists() error { return Errorf(EConflict, "A user with this id already exists.") }

// CheckUpdate is the rule of a user changed by an update of the user id:
// the id cannot change.
func (u *User) CheckUpdate(id string) error {
	if u.ID != id {
		return Errorf(EInvalid, "A user's id cannot change.")
	}
	return nil
}

// ErrSessionNotFound is a session no store holds.
func ErrSessionNotFound() error { return Errorf(ENotFound, "The session could not be found.") }

// ErrSessionExists is a new session whose id is taken.
func ErrSessionExists() error { return Errorf(EConflict, "A session with this id already exists.") }

// CheckUpdate is the rule of a session changed by an update of session id:
// the id cannot change.
func (x *Session) CheckUpdate(id string) error {
	if x.ID != id {
		return Errorf(EInvalid, "A session's id cannot change.")
	}
	return nil
}

// ErrTokenNotFound is an access token no store holds.
func ErrTokenNotFound() error {
	return Errorf(ETokenNotFound, "The access token could not be found.")
}

// ErrTokenExists is a new access token whose id is taken.
func ErrTokenExists() error { return Errorf(EConflict, "An access token with this id already exists.") }

// ErrTokenHashTaken is an access token whose hash another token has.
func ErrTokenHashTaken() error { return Errorf(EConflict, "Another access token has this hash.") }

// CheckNew readies a new access token for a store: it gets a new id when it
// has none, and it needs a hash.
func (t *AccessToken) CheckNew() error {
	if err := AssignID("access token", &t.ID); err != nil {
		return err
	}
	return t.checkHash()
}

// CheckUpdate is the rule of a token changed by an update of token id: the
// id cannot change, and it still needs a hash.
func (t *AccessToken) CheckUpdate(id string) error {
	if t.ID != id {
		return Errorf(EInvalid, "An access token's id cannot change.")
	}
	return t.checkHash()
}

func (t *AccessToken) checkHash() error {
	if t.Hash == "" {
		return Errorf(EInvalid, "An access token needs a hash.")
	}
	return nil
}

// ErrInvalidActionCode is an action code that is unknown or used.
func ErrInvalidActionCode() error {
	return Errorf(EInvalidActionCode,
		"The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")
}

// ErrActionCodeExists is a new action code whose hash is taken.
func ErrActionCodeExists() error {
	return Errorf(EConflict, "An action code with this hash already exists.")
}

// CheckNew is the rule of a new action code: it is stored under its hash.
func (c *ActionCode) CheckNew() error {
	if c.Hash == "" {
		return Errorf(EInvalid, "An action code needs a hash.")
	}
	return nil
}

// Use marks the code used at now, once: a used code is invalid
// (EInvalidActionCode), and one whose ExpiresAt is not after now has
// expired (EExpiredActionCode); a zero ExpiresAt never expires. The store
// calls it in the transaction that writes the code back.
func (c *ActionCode) Use(now time.Time) error {
	if !c.UsedAt.IsZero() {
		return ErrInvalidActionCode()
	}
	if !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt) {
		return Errorf(EExpiredActionCode, "The action code has expired.")
	}
	c.UsedAt = now
	return nil
}

// ErrLinkNotFound is a provider link no store holds.
func ErrLinkNotFound() error { return Errorf(ENotFound, "The linked account could not be found.") }

// ErrProviderAccountLinked is a provider account linked to a user already
// (each is linked to at most one).
func ErrProviderAccountLinked(provider string) error {
	return Errorf(ECredentialInUse, "This %s account is linked to another account.", ProviderName(provider))
}

// ErrProviderLinkedAlready is a second link of one provider for one user.
func ErrProviderLinkedAlready(provider string) error {
	return Errorf(EConflict, "A %s account is linked already.", ProviderName(provider))
}

// CheckNew is the rule of a new link: its provider and provider account
// are ids a store can hold.
func (l *ProviderLink) CheckNew() error {
	if err := ValidID("provider", l.Provider); err != nil {
		return err
	}
	return ValidID("provider account", l.Subject)
}

// Update applies fn to l, as a store read it, for the store to write back:
// fn's error aborts, and its provider account and its user cannot change.
func (l *ProviderLink) Update(fn func(l *ProviderLink) error) error {
	was := *l
	if err := fn(l); err != nil {
		return err
	}
	if l.Provider != was.Provider || l.Subject != was.Subject || l.UserID != was.UserID {
		return Errorf(EInvalid, "A link's provider account and user cannot change.")
	}
	return nil
}

// ErrPasskeyExists is a passkey whose credential id is registered already
// (to this account or another).
func ErrPasskeyExists() error { return Errorf(EConflict, "This passkey is registered already.") }

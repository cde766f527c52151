package core

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Passkeys (WebAuthn credentials): the record each backend keeps. The
// ceremonies that make and check them live in passkey/ (go-webauthn),
// behind this package's interfaces, as social sign-in's providers live in
// oauth/.

// Passkey is a WebAuthn credential of a user: a public key the user's
// authenticator holds the private half of. Nothing in it is secret.
type Passkey struct {
	ID     string // ours
	UserID string
	// Name is the owner's ("MacBook"): one line of 1 to 100 characters.
	Name string
	// CredentialID is the authenticator's id of the credential (at most
	// 1023 bytes), unique across every user.
	CredentialID []byte
	PublicKey    []byte // COSE_Key
	// AttestationType, AAGUID and Transports are what the authenticator
	// said at registration.
	AttestationType string
	AAGUID          []byte
	Transports      []string
	// SignCount is the authenticator's counter at the last use (0 for
	// authenticators that keep none); BackupEligible and BackupState are
	// its flags (a synced passkey).
	SignCount      uint32
	BackupEligible bool
	BackupState    bool
	CreatedAt      time.Time
	LastUsedAt     time.Time
}

// MaxPasskeys is how many passkeys one account may have.
const MaxPasskeys = 20

// maxCredentialIDLen is WebAuthn's bound on a credential id.
const maxCredentialIDLen = 1023

// Validate checks what a store must not keep: an owner, a name, a
// credential id within WebAuthn's bound and a public key.
func (p *Passkey) Validate() error {
	f := map[string]string{}
	if p.UserID == "" {
		f["userId"] = "A passkey needs its user"
	}
	switch name := strings.TrimSpace(p.Name); {
	case name == "":
		f["name"] = "Please enter a name for the passkey"
	case utf8.RuneCountInString(name) > MaxTokenNameLen || strings.ContainsAny(name, "\r\n"):
		f["name"] = "The name must be one line of at most 100 characters"
	case hasHiddenChars(name):
		f["name"] = "The name" + hiddenCharsRule
	}
	if n := len(p.CredentialID); n == 0 || n > maxCredentialIDLen {
		f["credentialId"] = "A credential id has 1 to 1023 bytes"
	}
	if len(p.PublicKey) == 0 {
		f["publicKey"] = "A passkey needs its public key"
	}
	return ValidationError(f)
}

// PasskeyStore keeps users' passkeys, deleted with their user.
type PasskeyStore interface {
	// CreatePasskey stores p (a new id when it has none): EConflict when
	// its credential id is stored already, EUserNotFound without its
	// user, EInvalid when the user has MaxPasskeys already.
	CreatePasskey(ctx context.Context, p *Passkey) error
	// ListUserPasskeys lists the user's passkeys, oldest first.
	ListUserPasskeys(ctx context.Context, userID string) ([]*Passkey, error)
	// FindPasskeyByCredential finds a passkey by its credential id
	// (ENotFound).
	FindPasskeyByCredential(ctx context.Context, credentialID []byte) (*Passkey, error)
	// UpdatePasskey applies fn in one transaction; the id, user and
	// credential id cannot change.
	UpdatePasskey(ctx context.Context, id string, fn func(p *Passkey) error) (*Passkey, error)
	// DeletePasskey deletes the user's passkey id: ENotFound when the user
	// has none with that id.
	DeletePasskey(ctx context.Context, userID, id string) error
}

// SortPasskeys orders passkeys oldest first (then by id), as
// ListUserPasskeys returns them.
func SortPasskeys(ps []*Passkey) {
	slices.SortFunc(ps, func(x, y *Passkey) int {
		if c := x.CreatedAt.Compare(y.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
}

// PasskeyFinder finds the user of a passkey's user handle (the user's id)
// and their passkeys, for a sign-in ceremony.
type PasskeyFinder func(userID string) (*User, []*Passkey, error)

// PasskeyCeremonies are WebAuthn's registration and sign-in ceremonies
// (passkey.RelyingParty): options for the browser, a signed state to
// give back, and the check of the browser's reply. A failed check is
// EInvalid.
type PasskeyCeremonies interface {
	BeginRegistration(u *User, existing []*Passkey) (options []byte, state string, err error)
	FinishRegistration(u *User, existing []*Passkey, state string, response []byte, name string) (*Passkey, error)
	BeginLogin(conditional bool) (options []byte, state string, err error)
	FinishLogin(state string, response []byte, find PasskeyFinder) (*User, *Passkey, error)
}

// Update applies fn to p, as a store does inside its transaction: the id,
// the user and the credential cannot change, and p must stay valid.
func (p *Passkey) Update(fn func(p *Passkey) error) error {
	old := *p
	if err := fn(p); err != nil {
		return err
	}
	if p.ID != old.ID || p.UserID != old.UserID || string(p.CredentialID) != string(old.CredentialID) {
		return Errorf(EInvalid, "A passkey's id, user and credential cannot change.")
	}
	return p.Validate()
}

package storetest

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// NewPasskey is a passkey of the user with a fresh credential id.
func NewPasskey(s Stores, userID, name string) *core.Passkey {
	return &core.Passkey{
		UserID: userID, Name: name, CredentialID: []byte(core.NewSecret()), PublicKey: []byte{0xa5, 0x01, 0x02},
		AttestationType: "none", AAGUID: make([]byte, 16), Transports: []string{"internal", "hybrid"},
		BackupEligible: true, CreatedAt: s.Clock.Now(),
	}
}

func testPasskeys(t *testing.T, s Stores) {
	if s.Passkeys == nil {
		t.Skip("no passkeys")
	}
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bea@example.com")
	p1 := NewPasskey(s, a.ID, "MacBook")
	must(t, s.Passkeys.CreatePasskey(ctx, p1))
	s.Clock.Add(time.Minute)
	p2 := NewPasskey(s, a.ID, "Phone")
	must(t, s.Passkeys.CreatePasskey(ctx, p2))
	must(t, s.Passkeys.CreatePasskey(ctx, NewPasskey(s, b.ID, "Bea's")))

	// A credential id once across users; a user that exists; a name.
	dup := NewPasskey(s, b.ID, "Copy")
	dup.CredentialID = p1.CredentialID
	wantCode(t, s.Passkeys.CreatePasskey(ctx, dup), core.EConflict)
	wantCode(t, s.Passkeys.CreatePasskey(ctx, NewPasskey(s, "ghost", "Ghost")), core.EUserNotFound)
	wantCode(t, s.Passkeys.CreatePasskey(ctx, NewPasskey(s, a.ID, " ")), core.EValidation)

	ps, err := s.Passkeys.ListUserPasskeys(ctx, a.ID)
	must(t, err)
	if len(ps) != 2 || ps[0].ID != p1.ID || ps[1].ID != p2.ID {
		t.Fatalf("ListUserPasskeys = %+v", ps)
	}
	got, err := s.Passkeys.FindPasskeyByCredential(ctx, p1.CredentialID)
	must(t, err)
	if got.ID != p1.ID || got.UserID != a.ID || got.Name != "MacBook" || !bytes.Equal(got.PublicKey, p1.PublicKey) ||
		got.AttestationType != "none" || len(got.AAGUID) != 16 || len(got.Transports) != 2 || !got.BackupEligible ||
		got.BackupState || !got.CreatedAt.Equal(p1.CreatedAt) {
		t.Fatalf("FindPasskeyByCredential = %+v, want %+v", got, p1)
	}
	_, err = s.Passkeys.FindPasskeyByCredential(ctx, []byte("nope"))
	wantCode(t, err, core.ENotFound)
	_, err = s.Passkeys.FindPasskeyByCredential(ctx, nil)
	wantCode(t, err, core.ENotFound)

	now := s.Clock.Now()
	_, err = s.Passkeys.UpdatePasskey(ctx, p1.ID, func(p *core.Passkey) error {
		p.SignCount, p.LastUsedAt, p.BackupState, p.Name = 4_000_000_000, now, true, "Work laptop"
		return nil
	})
	must(t, err)
	_, err = s.Passkeys.UpdatePasskey(ctx, p1.ID, func(p *core.Passkey) error { p.Name = "aborted"; return errAbort })
	if !errors.Is(err, errAbort) {
		t.Fatalf("UpdatePasskey error = %v, want the callback's", err)
	}
	_, err = s.Passkeys.UpdatePasskey(ctx, p1.ID, func(p *core.Passkey) error { p.UserID = b.ID; return nil })
	wantCode(t, err, core.EInvalid)
	_, err = s.Passkeys.UpdatePasskey(ctx, "nope", func(*core.Passkey) error { return nil })
	wantCode(t, err, core.ENotFound)
	got, err = s.Passkeys.FindPasskeyByCredential(ctx, p1.CredentialID)
	must(t, err)
	if got.SignCount != 4_000_000_000 || !got.LastUsedAt.Equal(now) || !got.BackupState || got.Name != "Work laptop" || got.UserID != a.ID {
		t.Fatalf("after UpdatePasskey %+v", got)
	}

	// Another user's passkey is not found; deleting frees the credential.
	wantCode(t, s.Passkeys.DeletePasskey(ctx, b.ID, p1.ID), core.ENotFound)
	must(t, s.Passkeys.DeletePasskey(ctx, a.ID, p1.ID))
	wantCode(t, s.Passkeys.DeletePasskey(ctx, a.ID, p1.ID), core.ENotFound)
	_, err = s.Passkeys.FindPasskeyByCredential(ctx, p1.CredentialID)
	wantCode(t, err, core.ENotFound)
	again := NewPasskey(s, b.ID, "Moved")
	again.CredentialID = p1.CredentialID
	must(t, s.Passkeys.CreatePasskey(ctx, again))

	// At most core.MaxPasskeys per user.
	for i := 1; i < core.MaxPasskeys; i++ {
		must(t, s.Passkeys.CreatePasskey(ctx, NewPasskey(s, a.ID, "More")))
	}
	wantCode(t, s.Passkeys.CreatePasskey(ctx, NewPasskey(s, a.ID, "One too many")), core.EInvalid)

	// Deleted with the user.
	must(t, s.Users.DeleteUser(ctx, a.ID))
	_, err = s.Passkeys.FindPasskeyByCredential(ctx, p2.CredentialID)
	wantCode(t, err, core.ENotFound)
	if ps, err := s.Passkeys.ListUserPasskeys(ctx, a.ID); err != nil || len(ps) != 0 {
		t.Fatalf("passkeys outlived their user: %v, %v", ps, err)
	}
}

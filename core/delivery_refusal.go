package core

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
)

// RefusalTokens makes and reads the tokens of the one-click links by which a
// recipient refuses every further message (List-Unsubscribe), or an
// author's address refuses further test emails. A token is the address
// sealed with AES-256-GCM: it needs no storage, cannot be forged for another
// address, and does not show the address in URLs or logs. The kind is the
// sealing's additional data, so a token of one kind never passes for the
// other.
type RefusalTokens struct {
	aead cipher.AEAD
}

// RefusalKind is what a refusal link refuses.
type RefusalKind int

const (
	// RefuseMessages: every further message to the address (a delivery's
	// link); it stops test emails to the address too.
	RefuseMessages RefusalKind = iota
	// RefuseTestEmails: further test emails to the address (a test
	// email's link, SendTest); deliveries to it go on.
	RefuseTestEmails
)

// NewRefusalTokens derives the token key from a 32-byte secret (in
// production DeriveKey(master, PurposeRefusalLinks)).
func NewRefusalTokens(secret []byte) *RefusalTokens {
	block, err := aes.NewCipher(DeriveKey(secret, "sendlater refusal tokens"))
	if err != nil {
		panic(err) // a 32-byte key never fails
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		panic(err)
	}
	return &RefusalTokens{aead: aead}
}

// The additional data of each kind's tokens.
var refusalAD = map[RefusalKind][]byte{
	RefuseMessages:   []byte("refuse"),
	RefuseTestEmails: []byte("refuse test emails"),
}

// Token returns a new token by which email refuses every further message.
func (t *RefusalTokens) Token(email string) string {
	return t.TokenOf(RefuseMessages, email)
}

// TokenOf returns a new token of kind for email.
func (t *RefusalTokens) TokenOf(kind RefusalKind, email string) string {
	return base64.RawURLEncoding.EncodeToString(t.aead.Seal(nil, nil, []byte(EmailKey(email)), refusalAD[kind]))
}

// Address returns the address a token of every further message was made
// for, or EInvalid.
func (t *RefusalTokens) Address(token string) (string, error) {
	addr, kind, err := t.Read(token)
	if err == nil && kind != RefuseMessages {
		err = errInvalidRefusal()
	}
	return addr, err
}

// Read returns the address and the kind a token was made for, or EInvalid.
func (t *RefusalTokens) Read(token string) (string, RefusalKind, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err == nil {
		for _, kind := range []RefusalKind{RefuseMessages, RefuseTestEmails} {
			if pt, err := t.aead.Open(nil, nil, b, refusalAD[kind]); err == nil {
				return string(pt), kind, nil
			}
		}
	}
	return "", 0, errInvalidRefusal()
}

func errInvalidRefusal() error {
	return Errorf(EInvalid, "This link is not valid. Please use the link of the email you received.")
}

// testEmailsRefusal is the key under which an address's refusal of test
// emails is stored among the refused addresses: a string no address is (an
// address holds no NUL), so that it never stands for a refusal of every
// message, and is kept, as they are, as a keyed hash only.
func testEmailsRefusal(email string) string {
	return "test emails\x00" + EmailKey(email)
}

// RefusalService records refusals made with the tokens of Tokens; it
// implements Refusals.
type RefusalService struct {
	Tokens *RefusalTokens
	Store  DeliveryStore
	Clock  Clock
}

var _ Refusals = (*RefusalService)(nil)

// Check tells whether token is a valid refusal token, and of which kind.
func (s *RefusalService) Check(token string) (RefusalKind, error) {
	_, kind, err := s.Tokens.Read(token)
	return kind, err
}

// Refuse records the refusal of the token's kind by its address; only a
// keyed hash of the address is stored.
func (s *RefusalService) Refuse(ctx context.Context, token string) (RefusalKind, error) {
	addr, kind, err := s.Tokens.Read(token)
	if err != nil {
		return kind, err
	}
	if kind == RefuseTestEmails {
		addr = testEmailsRefusal(addr)
	}
	return kind, s.Store.RefuseAddress(ctx, addr, s.Clock.Now())
}

// TestEmailsRefused tells whether email refused test emails, or every
// further message.
func (s *RefusalService) TestEmailsRefused(ctx context.Context, email string) (bool, error) {
	for _, key := range []string{testEmailsRefusal(email), email} {
		refused, err := s.Store.AddressRefused(ctx, key)
		if err != nil || refused {
			return refused, err
		}
	}
	return false, nil
}

package core

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
)

// RefusalTokens makes and reads the tokens of the one-click links by which a
// recipient refuses every further message (List-Unsubscribe). A token is the
// recipient's address sealed with AES-256-GCM: it needs no storage, cannot be
// forged for another address, and does not show the address in URLs or logs.
type RefusalTokens struct {
	aead cipher.AEAD
}

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

var refusalAD = []byte("refuse")

// Token returns a new token for email.
func (t *RefusalTokens) Token(email string) string {
	return base64.RawURLEncoding.EncodeToString(t.aead.Seal(nil, nil, []byte(EmailKey(email)), refusalAD))
}

// Address returns the address a token was made for, or EInvalid.
func (t *RefusalTokens) Address(token string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		var pt []byte
		if pt, err = t.aead.Open(nil, nil, b, refusalAD); err == nil {
			return string(pt), nil
		}
	}
	return "", Errorf(EInvalid, "This link is not valid. Please use the link of the email you received.")
}

// RefusalService records refusals made with the tokens of Tokens; it
// implements Refusals.
type RefusalService struct {
	Tokens *RefusalTokens
	Store  DeliveryStore
	Clock  Clock
}

var _ Refusals = (*RefusalService)(nil)

// Check tells whether token is a valid refusal token.
func (s *RefusalService) Check(token string) error {
	_, err := s.Tokens.Address(token)
	return err
}

// Refuse records that the token's address refuses every further message;
// only a keyed hash of the address is stored.
func (s *RefusalService) Refuse(ctx context.Context, token string) error {
	addr, err := s.Tokens.Address(token)
	if err != nil {
		return err
	}
	return s.Store.RefuseAddress(ctx, addr, s.Clock.Now())
}

package core

import (
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

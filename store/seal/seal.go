// Package seal is the envelope every store keeps secrets in: AES-256-GCM
// under the store key, bound to the record and field a ciphertext belongs to,
// and the keyed hash under which a store finds a value it must not keep
// (a refused address). The bbolt and the PostgreSQL stores both use it, so
// their sealed bytes are the same and move between them unopened.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/sendlater/sendlater/core"
)

// KeySize is the length of the store key: AES-256.
const KeySize = 32

// format is the first byte of a sealed field: AES-256-GCM with a random
// 12-byte nonce prepended, under the store key. A later key rotation would
// add a format.
const format = 1

// Sealer seals and opens fields under one store key. Safe for concurrent use.
type Sealer struct {
	aead    cipher.AEAD
	hashKey []byte // keys the hashes of refused addresses
	keyID   string
}

// New returns the Sealer of a 32-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, core.Errorf(core.EInvalid, "The encryption key must be %d bytes, got %d.", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Sealer{
		aead:    aead,
		hashKey: core.DeriveKey(key, core.PurposeStoreHashes),
		keyID:   hex.EncodeToString(core.DeriveKey(key, purposeKeyID)[:8]),
	}, nil
}

// purposeKeyID derives the name of a key (core.DeriveKey), never the key.
const purposeKeyID = "sendlater key id"

// KeyID names the key without revealing it: two stores with the same KeyID
// open each other's sealed bytes.
func (s *Sealer) KeyID() string { return s.keyID }

// AddressHash is the keyed hash under which a store keeps an address it
// must recognise without holding it: whatever its case, the same hash.
func (s *Sealer) AddressHash(email string) []byte {
	mac := hmac.New(sha256.New, s.hashKey)
	mac.Write([]byte(core.EmailKey(email)))
	return mac.Sum(nil)
}

// keyCheckPlaintext is sealed into a store when it is created; a key that
// cannot open it is not the store's key.
var keyCheckPlaintext = []byte("sendlater store key check v1")

// KeyCheck seals the key check under additional data ad, for a new store.
func (s *Sealer) KeyCheck(ad []byte) []byte {
	return s.aead.Seal(nil, nil, keyCheckPlaintext, ad)
}

// CheckKey reports whether sealed is a key check made with this key and ad.
func (s *Sealer) CheckKey(ad, sealed []byte) bool {
	pt, err := s.aead.Open(nil, nil, sealed, ad)
	return err == nil && string(pt) == string(keyCheckPlaintext)
}

// The field name and the record's id are the additional data of a seal, so
// a ciphertext moved to another field or another record fails to open
// instead of showing the wrong text.
func appendAdditionalData(ad []byte, id, field string) []byte {
	ad = append(ad, "message/"...)
	ad = append(ad, id...)
	ad = append(ad, '/')
	return append(ad, field...)
}

// sealField encrypts one field of record id with a fresh random nonce.
func (s *Sealer) sealField(id, field, plaintext string) []byte {
	dst := make([]byte, 1, 1+len(plaintext)+s.aead.Overhead())
	dst[0] = format
	ad := appendAdditionalData(make([]byte, 0, len("message/")+len(id)+1+len(field)), id, field)
	return s.aead.Seal(dst, nil, []byte(plaintext), ad)
}

// openField decrypts one field. It fails, never returning garbage, when the
// key is wrong or the bytes or their place have changed.
func (s *Sealer) openField(id, field string, sealed []byte) (string, error) {
	buf := openBuffers.Get().(*openBuffer)
	defer buf.release()
	if err := s.openInto(buf, id, field, sealed); err != nil {
		return "", err
	}
	return string(buf.pt), nil
}

// openInto decrypts one field and appends its plaintext to buf.pt.
func (s *Sealer) openInto(buf *openBuffer, id, field string, sealed []byte) error {
	if len(sealed) == 0 || sealed[0] != format {
		return fmt.Errorf("message %s: %s: unknown seal format", id, field)
	}
	buf.ad = appendAdditionalData(buf.ad[:0], id, field)
	pt, err := s.aead.Open(buf.pt, nil, sealed[1:], buf.ad)
	if err != nil {
		return fmt.Errorf("message %s: %s does not authenticate (wrong key or damaged data): %w", id, field, err)
	}
	buf.pt = pt
	return nil
}

// openBuffer holds a field's additional data and plaintext while it is
// opened, so that the returned string is the only allocation: listing
// opens four fields of every message.
type openBuffer struct{ ad, pt []byte }

var openBuffers = sync.Pool{New: func() any { return &openBuffer{ad: make([]byte, 0, 64), pt: make([]byte, 0, 1024)} }}

func (b *openBuffer) release() {
	clear(b.pt) // no plaintext lingers in the pool
	b.pt = b.pt[:0]
	if cap(b.pt) <= 256<<10 {
		openBuffers.Put(b)
	}
}

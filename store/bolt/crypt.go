package bolt

import (
	"fmt"
	"sync"
)

// Sealed message fields. The field name and the message id are the
// additional data of the seal, so a ciphertext moved to another field or
// another message fails to open instead of showing the wrong text.
const (
	fieldTitle     = "title"
	fieldName      = "name"
	fieldRecipient = "recipient"
	fieldBody      = "body"
	fieldLastError = "lastError"
)

// sealFormat is the first byte of a sealed field: AES-256-GCM with a random
// 12-byte nonce prepended, under the store key. A later key rotation would
// add a format.
const sealFormat = 1

func additionalData(id, field string) []byte {
	return appendAdditionalData(make([]byte, 0, len("message/")+len(id)+1+len(field)), id, field)
}

func appendAdditionalData(ad []byte, id, field string) []byte {
	ad = append(ad, "message/"...)
	ad = append(ad, id...)
	ad = append(ad, '/')
	return append(ad, field...)
}

// sealField encrypts one field of message id with a fresh random nonce.
func (s *DB) sealField(id, field, plaintext string) []byte {
	dst := make([]byte, 1, 1+len(plaintext)+s.aead.Overhead())
	dst[0] = sealFormat
	return s.aead.Seal(dst, nil, []byte(plaintext), additionalData(id, field))
}

// openField decrypts one field. It fails, never returning garbage, when the
// key is wrong or the bytes or their place have changed.
func (s *DB) openField(id, field string, sealed []byte) (string, error) {
	buf := openBuffers.Get().(*openBuffer)
	defer buf.release()
	if err := s.openInto(buf, id, field, sealed); err != nil {
		return "", err
	}
	return string(buf.pt), nil
}

// openInto decrypts one field and appends its plaintext to buf.pt.
func (s *DB) openInto(buf *openBuffer, id, field string, sealed []byte) error {
	if len(sealed) == 0 || sealed[0] != sealFormat {
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

package core

import (
	"crypto/rand"
	"encoding/base64"
)

const alphanum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// RandomString returns n characters drawn uniformly from letters and digits
// with crypto/rand.
func RandomString(n int) string {
	out := make([]byte, n)
	buf := make([]byte, n+n/2+8)
	for i := 0; i < n; {
		rand.Read(buf) // never fails (crypto/rand)
		for _, b := range buf {
			// 62*4 = 248: rejecting 248..255 keeps the draw uniform.
			if b < 248 && i < n {
				out[i] = alphanum[b%62]
				i++
			}
		}
	}
	return string(out)
}

// NewID returns a new random identifier of 20 letters and digits (119 bits).
func NewID() string { return RandomString(20) }

// NewSecret returns a URL-safe secret token carrying 256 random bits.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ValidID refuses an id no store can hold: empty, or longer than 255 bytes
// (a bbolt index key holds it; PostgreSQL refuses what bbolt could not
// hold either, so a copy between them never fails on an id). kind names
// the record in the error.
func ValidID(kind, id string) error {
	if id == "" || len(id) > 255 {
		return Errorf(EInvalid, "The %s id must be 1 to 255 bytes.", kind)
	}
	return nil
}

// AssignID gives *id a new id (NewID) when it is empty and checks it
// (ValidID): what every store does to a record it creates.
func AssignID(kind string, id *string) error {
	if *id == "" {
		*id = NewID()
	}
	return ValidID(kind, *id)
}

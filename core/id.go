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

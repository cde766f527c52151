package core

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"
)

// A sealed message's body is encrypted by its author's client with a key
// derived from a passphrase the server never sees (docs/sealed.md): the
// server stores and delivers the envelope and can never open it. This file
// is the format's Go implementation (the TUI seals with it, tests open with
// it); web/ui/src/lib/sealed.ts is the browser's, and both pass the golden
// vectors of testdata/sealed/vectors-v1.json.

// SealedVersion is the envelope format this code writes.
const SealedVersion = 1

// SealParams are the Argon2id costs of a seal: memory in KiB, passes and
// lanes.
type SealParams struct {
	Memory  uint32
	Time    uint32
	Threads uint8
}

// DefaultSealParams are the costs of a new seal: 64 MiB, 3 passes, 1 lane
// (RFC 9106's second recommendation with one lane, as the browser computes
// lanes one after another anyway).
var DefaultSealParams = SealParams{Memory: 64 * 1024, Time: 3, Threads: 1}

// The bounds an envelope's costs must keep to be opened: never cheaper than
// the default, never so costly that opening one could exhaust a browser.
const (
	sealMinMemory  = 64 * 1024
	sealMaxMemory  = 256 * 1024
	sealMaxTime    = 10
	sealMaxThreads = 4
	sealSaltLen    = 16
	sealNonceLen   = 12
	sealKeyLen     = 32
	// SealedMaxBytes bounds an envelope's ciphertext: a message's body
	// limit and the tag, with room.
	SealedMaxBytes = 1 << 20
)

// SealedEnvelope is a sealed body: the format's version, the KDF and its
// costs, the salt, the nonce and the ciphertext with its GCM tag. It is
// stored and sent as one string (String, ParseSealed):
//
//	sealed:v1$argon2id$m=65536,t=3,p=1$SALT$NONCE$CIPHERTEXT
//
// the last three base64url without padding.
type SealedEnvelope struct {
	Version    int
	KDF        string
	Memory     uint32
	Time       uint32
	Threads    uint8
	Salt       []byte
	Nonce      []byte
	Ciphertext []byte
}

// sealedAD binds an envelope to its message: a ciphertext moved to another
// message does not open.
func sealedAD(messageID string) []byte {
	return []byte("sendlater sealed v1\n" + messageID)
}

// sealKey derives the key of passphrase (normalized to NFC, so the same
// words typed on any system give the same key) under salt and p.
func sealKey(passphrase string, salt []byte, p SealParams) []byte {
	return argon2.IDKey([]byte(norm.NFC.String(passphrase)), salt, p.Time, p.Memory, p.Threads, sealKeyLen)
}

// Seal encrypts body for the message messageID under passphrase with a new
// random salt and nonce.
func Seal(passphrase, messageID string, body []byte, p SealParams) (*SealedEnvelope, error) {
	salt, nonce := make([]byte, sealSaltLen), make([]byte, sealNonceLen)
	rand.Read(salt)
	rand.Read(nonce)
	return sealWith(passphrase, messageID, body, p, salt, nonce)
}

// sealWith is Seal with the salt and nonce given (the golden vectors').
func sealWith(passphrase, messageID string, body []byte, p SealParams, salt, nonce []byte) (*SealedEnvelope, error) {
	env := &SealedEnvelope{Version: SealedVersion, KDF: "argon2id", Memory: p.Memory, Time: p.Time, Threads: p.Threads, Salt: salt, Nonce: nonce}
	if err := env.Check(); err != nil {
		return nil, err
	}
	aead, err := sealAEAD(sealKey(passphrase, salt, p))
	if err != nil {
		return nil, err
	}
	env.Ciphertext = aead.Seal(nil, nonce, body, sealedAD(messageID))
	return env, nil
}

func sealAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// ErrWrongPassphrase is what Open answers when the passphrase (or the
// message the envelope is opened for) is not the one it was sealed with, or
// the envelope was changed.
var ErrWrongPassphrase = errors.New("the passphrase does not open this message")

// Open decrypts env, sealed for messageID, with passphrase.
func Open(passphrase, messageID string, env *SealedEnvelope) ([]byte, error) {
	if err := env.Check(); err != nil {
		return nil, err
	}
	key := sealKey(passphrase, env.Salt, SealParams{Memory: env.Memory, Time: env.Time, Threads: env.Threads})
	aead, err := sealAEAD(key)
	if err != nil {
		return nil, err
	}
	body, err := aead.Open(nil, env.Nonce, env.Ciphertext, sealedAD(messageID))
	if err != nil {
		return nil, ErrWrongPassphrase
	}
	return body, nil
}

// Check reports whether env is an envelope this code can open, by its
// shape alone (the server checks what it stores with it, without a key).
func (env *SealedEnvelope) Check() error {
	switch {
	case env.Version != SealedVersion:
		return Errorf(EInvalid, "This sealed message is of version %d; this version of Sendlater opens version %d.", env.Version, SealedVersion)
	case env.KDF != "argon2id":
		return Errorf(EInvalid, "A sealed message's key must be derived with argon2id.")
	case env.Memory < sealMinMemory || env.Memory > sealMaxMemory || env.Time < 1 || env.Time > sealMaxTime ||
		env.Threads < 1 || env.Threads > sealMaxThreads:
		return Errorf(EInvalid, "A sealed message's costs must be 64 to 256 MiB, 1 to 10 passes and 1 to 4 lanes.")
	case len(env.Salt) != sealSaltLen || len(env.Nonce) != sealNonceLen:
		return Errorf(EInvalid, "A sealed message needs a 16-byte salt and a 12-byte nonce.")
	case env.Ciphertext != nil && (len(env.Ciphertext) < 16 || len(env.Ciphertext) > SealedMaxBytes):
		return Errorf(EInvalid, "A sealed message's ciphertext must be 16 bytes to 1 MiB.")
	}
	return nil
}

// sealB64 is the envelope's encoding of bytes: base64url without padding,
// one spelling only.
var sealB64 = base64.RawURLEncoding.Strict()

// SealedPrefix starts every envelope's string.
const SealedPrefix = "sealed:"

// String is env as it is stored and sent.
func (env *SealedEnvelope) String() string {
	return fmt.Sprintf("%sv%d$%s$m=%d,t=%d,p=%d$%s$%s$%s", SealedPrefix, env.Version, env.KDF, env.Memory, env.Time, env.Threads,
		sealB64.EncodeToString(env.Salt), sealB64.EncodeToString(env.Nonce), sealB64.EncodeToString(env.Ciphertext))
}

// ParseSealed reads an envelope's string, and checks its shape (Check).
func ParseSealed(s string) (*SealedEnvelope, error) {
	bad := Errorf(EInvalid, "This is not a sealed message this version of Sendlater can open.")
	rest, ok := strings.CutPrefix(s, SealedPrefix)
	parts := strings.Split(rest, "$")
	// One spelling only, as the browser's reader: Go's base64 decoder
	// skips line breaks, and Atoi reads "v01".
	if !ok || len(parts) != 6 || len(s) > 2*SealedMaxBytes || strings.ContainsAny(s, "\r\n") {
		return nil, bad
	}
	env := &SealedEnvelope{KDF: parts[1]}
	var m, t, p uint64
	v, err := strconv.Atoi(strings.TrimPrefix(parts[0], "v"))
	if err != nil || parts[0] != "v"+strconv.Itoa(v) {
		return nil, bad
	}
	env.Version = v
	if n, err := fmt.Sscanf(parts[2], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || n != 3 ||
		parts[2] != fmt.Sprintf("m=%d,t=%d,p=%d", m, t, p) || m > math.MaxUint32 || t > math.MaxUint32 || p > math.MaxUint8 {
		return nil, bad
	}
	env.Memory, env.Time, env.Threads = uint32(m), uint32(t), uint8(p)
	var e1, e2, e3 error
	env.Salt, e1 = sealB64.DecodeString(parts[3])
	env.Nonce, e2 = sealB64.DecodeString(parts[4])
	env.Ciphertext, e3 = sealB64.DecodeString(parts[5])
	if e1 != nil || e2 != nil || e3 != nil || env.Ciphertext == nil {
		return nil, bad
	}
	if err := env.Check(); err != nil {
		return nil, err
	}
	return env, nil
}

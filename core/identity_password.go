package core

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password length limits, in characters.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// commonPasswordList holds the 10,000 most common passwords, most common
// first, one a line, in lower case: the head of the password frequency list
// that zxcvbn 4.4.2 (MIT) ships.
//
//go:embed identity_common_passwords.txt
var commonPasswordList string

var commonPasswords = func() map[string]struct{} {
	set := make(map[string]struct{}, 10000)
	for line := range strings.Lines(commonPasswordList) {
		if p := strings.TrimSpace(line); p != "" {
			set[p] = struct{}{}
		}
	}
	return set
}()

// CommonPassword reports whether p is one of the 10,000 most common
// passwords, ignoring case.
func CommonPassword(p string) bool {
	_, ok := commonPasswords[strings.ToLower(p)]
	return ok
}

// CheckPassword applies the password rules: 8 to 128 characters, any
// characters, and not one of the 10,000 most common. An empty password is a
// validation error with the message of SPEC.md section 5; a password that
// breaks a rule is auth/weak-password. field names the form field.
func CheckPassword(field, p string) error {
	if p == "" {
		return ValidationError(map[string]string{field: "Please enter a password"})
	}
	var msg string
	switch n := utf8.RuneCountInString(p); {
	case n < MinPasswordLen:
		msg = fmt.Sprintf("The password must be at least %d characters long.", MinPasswordLen)
	case n > MaxPasswordLen:
		msg = fmt.Sprintf("The password must be at most %d characters long.", MaxPasswordLen)
	case CommonPassword(p):
		msg = "This password is one of the most common passwords and easy to guess. Please choose another."
	default:
		return nil
	}
	return &Error{Code: EWeakPassword, Message: msg, Fields: map[string]string{field: msg}}
}

// PasswordParams are the argon2id cost parameters.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// DefaultPasswordParams are OWASP's argon2id recommendation: m=19 MiB, t=2, p=1.
var DefaultPasswordParams = PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	passwordSaltLen = 16
	passwordKeyLen  = 32
)

var b64 = base64.RawStdEncoding

// HashPassword returns the argon2id hash of password in the PHC string
// format: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func HashPassword(password string, pp PasswordParams) string {
	salt := make([]byte, passwordSaltLen)
	rand.Read(salt) // never fails (crypto/rand)
	key := argon2.IDKey([]byte(password), salt, pp.Time, pp.Memory, pp.Threads, passwordKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, pp.Memory, pp.Time, pp.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// VerifyPassword reports whether password matches a PHC argon2id hash made by
// HashPassword, with the parameters the hash names. A malformed hash matches
// nothing.
func VerifyPassword(password, phc string) bool {
	pp, salt, key, ok := parsePasswordHash(phc)
	if !ok {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, pp.Time, pp.Memory, pp.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// maxVerifyMemory bounds the memory a stored hash may ask for (1 GiB), so a
// corrupt record cannot exhaust memory.
const maxVerifyMemory = 1 << 20

func parsePasswordHash(phc string) (pp PasswordParams, salt, key []byte, ok bool) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return pp, nil, nil, false
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return pp, nil, nil, false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &pp.Memory, &pp.Time, &pp.Threads); err != nil {
		return pp, nil, nil, false
	}
	if pp.Memory == 0 || pp.Memory > maxVerifyMemory || pp.Time == 0 || pp.Time > 100 || pp.Threads == 0 {
		return pp, nil, nil, false
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 {
		return pp, nil, nil, false
	}
	return pp, salt, key, true
}

// hashLimiter bounds the argon2id computations running at once: each holds
// Memory KiB, so a burst of sign-ins queues instead of exhausting memory.
type hashLimiter chan struct{}

// do runs fn, a computation of about memKiB, once a slot is free; waiting
// ends with ctx.
func (l hashLimiter) do(ctx context.Context, memKiB uint32, fn func()) error {
	select {
	case l <- struct{}{}:
	case <-ctx.Done():
		return Errorf(EUnavailable, "The server is busy. Please try again in a moment.")
	}
	defer func() {
		if memKiB < collectAfterKiB {
			<-l
			return
		}
		// The computation's memory is garbage now: collect it before the
		// slot passes on, so the next computation reuses it instead of
		// growing the heap (at most cap(l) computations' memory exists at
		// once); when the last one ends, hand it all back to the system.
		runtime.GC()
		<-l
		if len(l) == 0 {
			releaseHashMemory()
		}
	}()
	fn()
	return nil
}

// collectAfterKiB is the computation size from which its memory is
// collected at once (the tests' cheap parameters stay below it).
const collectAfterKiB = 1024

// hashMemory coalesces the returns of hashing memory to the system.
var hashMemory struct{ running, again atomic.Bool }

// releaseHashMemory hands the memory of finished argon2id computations back
// to the system at once (a collection and a scavenge, in the background;
// calls during one run it once more after it, not once each). Each
// computation allocates Memory KiB (19 MiB) that would otherwise stay
// resident until the scavenger's pace gets to it: after a burst of
// sign-ins idle memory stayed 60 MiB above its baseline (docs/benchmarks.md,
// issue 14).
func releaseHashMemory() {
	hashMemory.again.Store(true)
	if hashMemory.running.CompareAndSwap(false, true) {
		go returnHashMemory()
	}
}

func returnHashMemory() {
	for {
		for hashMemory.again.Swap(false) {
			debug.FreeOSMemory()
		}
		hashMemory.running.Store(false)
		// A call between the last Swap and the Store found us running.
		if !hashMemory.again.Load() || !hashMemory.running.CompareAndSwap(false, true) {
			return
		}
	}
}

package core

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

// The golden vectors of the sealed format, shared with the browser's
// implementation (web/ui/src/lib/sealed.test.ts reads the same file): each
// side must seal to exactly these envelopes, open them, refuse the broken
// ones, and estimate the same strengths. go test ./core -run SealedVectors
// -update-sealed writes the file anew (review the diff: a changed envelope
// is a changed format).
var updateSealed = flag.Bool("update-sealed", false, "write testdata/sealed/vectors-v1.json")

const sealedVectorsFile = "../testdata/sealed/vectors-v1.json"

type sealedVectors struct {
	Note     string         `json:"note"`
	Seal     []sealVector   `json:"seal"`
	Refuse   []refuseVector `json:"refuse"`
	Strength []strengthCase `json:"strength"`
}

type sealVector struct {
	Name       string `json:"name"`
	Passphrase string `json:"passphrase"`
	OpenWith   string `json:"openWith,omitempty"` // another spelling that opens it (NFC)
	MessageID  string `json:"messageId"`
	Body       string `json:"body"`
	Salt       string `json:"salt"`
	Nonce      string `json:"nonce"`
	Memory     uint32 `json:"m"`
	Time       uint32 `json:"t"`
	Threads    uint8  `json:"p"`
	Envelope   string `json:"envelope"`
}

type refuseVector struct {
	Name       string `json:"name"`
	Passphrase string `json:"passphrase"`
	MessageID  string `json:"messageId"`
	Envelope   string `json:"envelope"`
	Error      string `json:"error"` // "wrong-passphrase" or "invalid"
}

type strengthCase struct {
	Passphrase string `json:"passphrase"`
	Bits       int    `json:"bits"`
}

func unb64(s string) []byte {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// makeSealedVectors seals the cases anew.
func makeSealedVectors(t *testing.T) sealedVectors {
	v := sealedVectors{Note: "Golden vectors of docs/sealed.md, format v1. Written by go test ./core -run SealedVectors -update-sealed; read by core and web/ui tests."}
	fast := SealParams{Memory: 64 * 1024, Time: 1, Threads: 1}
	for _, c := range []struct {
		name, pass, openWith, id, body string
		p                              SealParams
	}{
		{"a letter", "orbit lantern velvet cactus thunder meadow", "", "msg0000000000000001", "The key is under the blue pot.\nLove, Ann", fast},
		{"the default costs", "orbit lantern velvet cactus thunder meadow", "", "msg0000000000000002", "Default costs: 64 MiB, 3 passes.", DefaultSealParams},
		{"unicode, NFC", "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e 1987 \u00e9t\u00e9 \u00e0 Z\u00fcrich!", "cafe\u0301 cre\u0300me bru\u0302le\u0301e 1987 e\u0301te\u0301 a\u0300 Zu\u0308rich!", "msg0000000000000003", "Für dich — 🌻, \u2028 and <b>&</b>.", fast},
		{"an empty body", "orbit lantern velvet cactus thunder meadow", "", "msg0000000000000004", "", fast},
	} {
		salt := []byte(strings.Repeat(string(rune('a'+len(v.Seal))), sealSaltLen))
		nonce := []byte(strings.Repeat(string(rune('n'+len(v.Seal))), sealNonceLen))
		env, err := sealWith(c.pass, c.id, []byte(c.body), c.p, salt, nonce)
		if err != nil {
			t.Fatal(err)
		}
		v.Seal = append(v.Seal, sealVector{Name: c.name, Passphrase: c.pass, OpenWith: c.openWith, MessageID: c.id, Body: c.body,
			Salt: sealB64.EncodeToString(salt), Nonce: sealB64.EncodeToString(nonce), Memory: c.p.Memory, Time: c.p.Time,
			Threads: c.p.Threads, Envelope: env.String()})
	}
	good := v.Seal[0]
	env, _ := ParseSealed(good.Envelope)
	flipped := *env
	flipped.Ciphertext = append([]byte(nil), env.Ciphertext...)
	flipped.Ciphertext[3] ^= 1
	cheap := *env
	cheap.Memory = 32 * 1024
	v.Refuse = []refuseVector{
		{"a wrong passphrase", "orbit lantern velvet cactus thunder meadows", good.MessageID, good.Envelope, "wrong-passphrase"},
		{"another message (associated data)", good.Passphrase, "msg0000000000000009", good.Envelope, "wrong-passphrase"},
		{"a changed ciphertext", good.Passphrase, good.MessageID, flipped.String(), "wrong-passphrase"},
		{"an unknown version", good.Passphrase, good.MessageID, strings.Replace(good.Envelope, "sealed:v1$", "sealed:v2$", 1), "invalid"},
		{"costs below the floor", good.Passphrase, good.MessageID, cheap.String(), "invalid"},
		{"another KDF", good.Passphrase, good.MessageID, strings.Replace(good.Envelope, "$argon2id$", "$scrypt$", 1), "invalid"},
		{"a non-canonical base64", good.Passphrase, good.MessageID, good.Envelope[:len(good.Envelope)-1] + "_", "invalid"},
		{"not an envelope", good.Passphrase, good.MessageID, "The key is under the blue pot.", "invalid"},
	}
	for _, p := range []string{
		"", "password", "Password123!", "Tr0ub4dor&3", "correct horse battery staple",
		"correct horse battery staple orbit lantern", "q8#Lm2$vT9!xW4@z", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"orbit orbit orbit orbit orbit orbit orbit", "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e 1987 \u00e9t\u00e9 \u00e0 Z\u00fcrich!",
		"my-dog-is-called-rex-1999", "Antidisestablishmentarianism", "私の秘密の手紙は青い鍋の下にあります",
	} {
		v.Strength = append(v.Strength, strengthCase{p, PassphraseBits(p)})
	}
	return v
}

func TestSealedVectors(t *testing.T) {
	if *updateSealed {
		b, _ := json.MarshalIndent(makeSealedVectors(t), "", "  ")
		if err := os.WriteFile(sealedVectorsFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(sealedVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v sealedVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Seal {
		env, err := sealWith(c.Passphrase, c.MessageID, []byte(c.Body), SealParams{c.Memory, c.Time, c.Threads}, unb64(c.Salt), unb64(c.Nonce))
		if err != nil || env.String() != c.Envelope {
			t.Errorf("%s: sealed to %v %v, want %s", c.Name, env, err, c.Envelope)
		}
		parsed, err := ParseSealed(c.Envelope)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, pass := range []string{c.Passphrase, c.OpenWith} {
			if pass == "" {
				continue
			}
			if body, err := Open(pass, c.MessageID, parsed); err != nil || string(body) != c.Body {
				t.Errorf("%s: opened with %q: %q %v", c.Name, pass, body, err)
			}
		}
	}
	for _, c := range v.Refuse {
		env, err := ParseSealed(c.Envelope)
		if err == nil {
			_, err = Open(c.Passphrase, c.MessageID, env)
		}
		got := "invalid"
		if err == ErrWrongPassphrase {
			got = "wrong-passphrase"
		} else if err == nil {
			got = "opened"
		}
		if got != c.Error {
			t.Errorf("%s: %s (%v), want %s", c.Name, got, err, c.Error)
		}
	}
	for _, c := range v.Strength {
		if got := PassphraseBits(c.Passphrase); got != c.Bits {
			t.Errorf("PassphraseBits(%q) = %d, want %d", c.Passphrase, got, c.Bits)
		}
	}
}

// A new seal opens with its passphrase only, for its message only, and
// every seal has its own salt and nonce.
func TestSealOpens(t *testing.T) {
	p := SealParams{Memory: 64 * 1024, Time: 1, Threads: 1}
	a, err := Seal("orbit lantern velvet cactus thunder meadow", "m1", []byte("hello"), p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Seal("orbit lantern velvet cactus thunder meadow", "m1", []byte("hello"), p)
	if a.String() == b.String() || string(a.Salt) == string(b.Salt) || string(a.Nonce) == string(b.Nonce) {
		t.Fatal("two seals share a salt or a nonce")
	}
	if body, err := Open("orbit lantern velvet cactus thunder meadow", "m1", a); err != nil || string(body) != "hello" {
		t.Fatalf("open: %q %v", body, err)
	}
	if _, err := Open("orbit lantern velvet cactus thunder meadow", "m2", a); err != ErrWrongPassphrase {
		t.Fatalf("opened for another message: %v", err)
	}
}

func TestCheckPassphrase(t *testing.T) {
	for _, c := range []struct {
		pass string
		ok   bool
	}{{"", false}, {"correct horse battery staple", false}, {"correct horse battery staple orbit lantern", true}, {"q8#Lm2$vT9!xW4@z", true}} {
		err := CheckPassphrase(c.pass)
		if (err == nil) != c.ok {
			t.Errorf("%q: %v", c.pass, err)
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Fields["passphrase"] == "") {
			t.Errorf("%q: no error on the field passphrase: %v", c.pass, err)
		}
	}
}

// An envelope has one spelling, as the browser reads it: no line break in
// its base64 (which Go's decoder would skip), no "v01".
func TestParseSealedRefusesOtherSpellings(t *testing.T) {
	p := SealParams{Memory: 64 * 1024, Time: 1, Threads: 1}
	env, err := Seal("orbit lantern velvet cactus thunder meadow", "m1", []byte("hello"), p)
	if err != nil {
		t.Fatal(err)
	}
	s := env.String()
	if _, err := ParseSealed(s); err != nil {
		t.Fatalf("the envelope itself: %v", err)
	}
	cut := strings.LastIndex(s, "$") + 4
	for _, bad := range []string{s[:cut] + "\r\n" + s[cut:], s[:cut] + "\n" + s[cut:], s + "\n",
		strings.Replace(s, ":v1$", ":v01$", 1), strings.Replace(s, ":v1$", ":v+1$", 1)} {
		if _, err := ParseSealed(bad); ErrorCode(err) != EInvalid {
			t.Errorf("ParseSealed(%q) = %v, want invalid", bad, err)
		}
	}
}

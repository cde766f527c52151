package core_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// cheap are argon2id parameters that keep tests fast.
var cheap = testenv.CheapPasswords

func TestHashPasswordDefaultsArePHCArgon2id(t *testing.T) {
	h := core.HashPassword("correct horse battery", core.DefaultPasswordParams)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not name argon2id with m=19456,t=2,p=1", h)
	}
	if !core.VerifyPassword("correct horse battery", h) {
		t.Fatal("the password does not verify against its own hash")
	}
	if core.VerifyPassword("correct horse batterY", h) {
		t.Fatal("a wrong password verifies")
	}
}

func TestHashPasswordSaltsEveryHash(t *testing.T) {
	a, b := core.HashPassword("same password", cheap), core.HashPassword("same password", cheap)
	if a == b {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if !core.VerifyPassword("same password", a) || !core.VerifyPassword("same password", b) {
		t.Fatal("salted hashes do not verify")
	}
}

func TestVerifyPasswordUsesTheHashParameters(t *testing.T) {
	h := core.HashPassword("p4ssw0rd-long", core.PasswordParams{Memory: 128, Time: 3, Threads: 2})
	if !strings.Contains(h, "$m=128,t=3,p=2$") || !core.VerifyPassword("p4ssw0rd-long", h) {
		t.Fatalf("hash %q with other parameters does not verify", h)
	}
}

func TestVerifyPasswordRejectsMalformedHashes(t *testing.T) {
	good := core.HashPassword("password!!", cheap)
	parts := strings.Split(good, "$")
	salt, key := parts[4], parts[5]
	for _, h := range []string{
		"",
		"password!!",
		"$argon2i$v=19$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=16$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=0,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=99999999,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=0,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=0$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$!!$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$",
		"$argon2id$v=19$m=64,t=1,p=1$" + salt,
		good + "$extra",
	} {
		if core.VerifyPassword("password!!", h) {
			t.Errorf("malformed hash %q verifies", h)
		}
	}
}

func TestCheckPassword(t *testing.T) {
	tests := []struct {
		password string
		code     string
		contains string
	}{
		{"", core.EValidation, "Please enter a password"},
		{"short", core.EWeakPassword, "at least 8 characters"},
		{"1234567", core.EWeakPassword, "at least 8 characters"},
		{"ééééééé", core.EWeakPassword, "at least 8 characters"}, // 14 bytes, 7 characters
		{strings.Repeat("x", 129), core.EWeakPassword, "at most 128 characters"},
		{"password", core.EWeakPassword, "most common"},
		{"12345678", core.EWeakPassword, "most common"},
		{"BaseBall", core.EWeakPassword, "most common"}, // case does not help
		{"qwertyuiop", core.EWeakPassword, "most common"},
		{"éééééééé", "", ""},
		{strings.Repeat("x", 128), "", ""},
		{"  spaces and 🙂 are fine ", "", ""},
		{"tr0ub4dor&3-horse", "", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.20q", tt.password), func(t *testing.T) {
			err := core.CheckPassword("password", tt.password)
			if got := core.ErrorCode(err); got != tt.code {
				t.Fatalf("code %q, want %q (%v)", got, tt.code, err)
			}
			if err == nil {
				return
			}
			e, _ := core.AsError(err)
			if !strings.Contains(e.Message+e.Fields["password"], tt.contains) || e.Fields["password"] == "" {
				t.Fatalf("error %+v does not say %q in the password field", e, tt.contains)
			}
		})
	}
}

func TestCommonPasswordListHoldsTenThousand(t *testing.T) {
	for _, p := range []string{"123456", "password", "iloveyou", "trustno1", "qqqqqq1"} {
		if !core.CommonPassword(p) {
			t.Errorf("%q is not in the common list", p)
		}
	}
	if core.CommonPassword("a quite unusual passphrase") {
		t.Error("an unusual passphrase counts as common")
	}
}

var key = []byte("0123456789abcdef0123456789abcdef")

func TestIDTokenSignVerify(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := core.IDTokenClaims{UserID: "u1", SessionID: "s1", AuthTime: now.Unix() - 10, IssuedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}
	tok := core.SignIDToken(key, c)
	got, err := core.VerifyIDToken(key, tok, now.Add(59*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if *got != c {
		t.Fatalf("claims %+v, want %+v", *got, c)
	}
	if _, err := core.VerifyIDToken(key, tok, now.Add(time.Hour)); core.ErrorCode(err) != core.EInvalidToken {
		t.Fatalf("expired token: %v", err)
	}
}

func TestIDTokenRejectsTampering(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := core.IDTokenClaims{UserID: "u1", SessionID: "s1", AuthTime: now.Unix(), IssuedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}
	tok := core.SignIDToken(key, c)
	dot := strings.LastIndexByte(tok, '.')

	forged := c
	forged.UserID = "u2"
	payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(
		`{"uid":"u2","sid":"s1","auth_time":%d,"iat":%d,"exp":%d}`, c.AuthTime, c.IssuedAt, c.ExpiresAt)))
	otherKey := []byte("fedcba9876543210fedcba9876543210")

	for name, bad := range map[string]string{
		"empty":           "",
		"garbage":         "not a token",
		"other payload":   "v1." + payload + tok[dot:],
		"flipped sig":     tok[:len(tok)-2] + flip(tok[len(tok)-2:]),
		"no signature":    tok[:dot],
		"empty signature": tok[:dot+1],
		"other key":       core.SignIDToken(otherKey, c),
		"other version":   "v2" + tok[2:],
		"no uid":          core.SignIDToken(key, core.IDTokenClaims{SessionID: "s1", ExpiresAt: c.ExpiresAt}),
		"no sid":          core.SignIDToken(key, core.IDTokenClaims{UserID: "u1", ExpiresAt: c.ExpiresAt}),
		"pat":             core.AccessTokenPrefix + "x",
		// The signature's last character carries 4 bits; its other 2 must
		// be zero, so one token has one spelling.
		"non-canonical signature": tok[:len(tok)-1] + string(b64url[strings.IndexByte(b64url, tok[len(tok)-1])^1]),
	} {
		if _, err := core.VerifyIDToken(key, bad, now); core.ErrorCode(err) != core.EInvalidToken {
			t.Errorf("%s: %v, want %s", name, err, core.EInvalidToken)
		}
	}
}

const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

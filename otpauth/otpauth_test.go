package otpauth_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/otpauth"
)

// RFC 6238's test vector (SHA-1, its 8 digits' last 6) and a new secret's URI.
func TestCodes(t *testing.T) {
	c := otpauth.Codes{}
	// "12345678901234567890" in base32, at T = 59 s: 94287082.
	if got, err := c.Code("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", time.Unix(59, 0)); err != nil || got != "287082" {
		t.Fatalf("code = %q, %v; want 287082", got, err)
	}
	secret, uri, err := c.NewSecret("Sendlater", "ann@example.com")
	if err != nil || len(secret) != 32 || !strings.HasPrefix(uri, "otpauth://totp/Sendlater:ann@example.com?") ||
		!strings.Contains(uri, "secret="+secret) || !strings.Contains(uri, "period=30") || !strings.Contains(uri, "digits=6") {
		t.Fatalf("NewSecret = %q %q %v", secret, uri, err)
	}
}

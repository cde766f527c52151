package web

import "testing"

// The pages offer passkeys only where browsers run WebAuthn: https:// at a
// domain name, or localhost; never at an IP address or plain http://.
func TestBrowsersOfferPasskeys(t *testing.T) {
	for base, want := range map[string]bool{
		"https://sendlater.example": true,
		"http://localhost:8080":     true,
		"http://app.localhost":      true,
		"http://sendlater.example":  false,
		"http://127.0.0.1:8080":     false,
		"https://[2001:db8::1]":     false,
		"https://192.0.2.7":         false,
		"":                          false,
		"::not a url":               false,
	} {
		if got := browsersOfferPasskeys(base); got != want {
			t.Errorf("browsersOfferPasskeys(%q) = %v, want %v", base, got, want)
		}
	}
}

package web

import "testing"

// The access log never writes a sealed message's open token (it fetches
// the envelope) nor a file link's token (it downloads the file).
func TestLoggedPathHidesOpenTokens(t *testing.T) {
	for in, want := range map[string]string{
		"/open/m1.secretmac":     "/open/…",
		"/api/open/m1.secretmac": "/api/open/…",
		"/open/":                 "/open/",
		"/files/f1.secretmac":    "/files/…",
		"/dashboard":             "/dashboard",
		"/opener":                "/opener",
	} {
		if got := loggedPath(in); got != want {
			t.Errorf("loggedPath(%q) = %q, want %q", in, got, want)
		}
	}
}

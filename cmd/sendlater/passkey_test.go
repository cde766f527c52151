package main_test

import (
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startLocalhostServer runs serve in dir at a free port of 127.0.0.1 with
// base_url http://localhost:<port>, where browsers allow passkeys (a
// secure context whose host may be a relying party ID; an IP address may
// not), and returns it with url set to that base URL.
func startLocalhostServer(t *testing.T, dir string, env ...string) *server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		_, port, _ := strings.Cut(addr, ":")
		base := "http://localhost:" + port
		cmd := exec.Command(binary, "serve")
		cmd.Dir = dir
		cmd.Env = append(cleanEnv(), append([]string{"SENDLATER_ADDR=" + addr, "SENDLATER_BASE_URL=" + base}, env...)...)
		s, err := launchServer(cmd)
		if err != nil && (attempt == 5 || !strings.Contains(err.Error(), "address already in use")) {
			t.Fatal(err)
		}
		if err == nil {
			t.Cleanup(func() { s.stop(t) })
			s.url = base
			return s
		}
	}
}

// The config's app_name names the site in the browser's passkey prompt:
// the relying party's name in the options of adding a passkey.
func TestAppNameNamesThePasskeyPrompt(t *testing.T) {
	srv := startLocalhostServer(t, t.TempDir(), "SENDLATER_APP_NAME=Acme Vault")
	s := signUp(t, srv.url, "ann@example.com")
	var begin struct {
		Options struct {
			PublicKey struct {
				RP struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"rp"`
			} `json:"publicKey"`
		} `json:"options"`
	}
	bearerCall(t, "POST", srv.url+"/api/me/passkeys/begin", s.idToken, nil, &begin)
	if rp := begin.Options.PublicKey.RP; rp.Name != "Acme Vault" || rp.ID != "localhost" {
		t.Fatalf("relying party %+v, want Acme Vault at localhost", rp)
	}
}

// The config's app_name is the issuer in the authenticator app: the
// otpauth URI's label and issuer parameter.
func TestAppNameIsTheTOTPIssuer(t *testing.T) {
	srv := startLocalhostServer(t, t.TempDir(), "SENDLATER_APP_NAME=Acme Vault")
	s := signUp(t, srv.url, "ann@example.com")
	var en struct{ URI string }
	bearerCall(t, "POST", srv.url+"/api/me/totp", s.idToken, nil, &en)
	u, err := url.Parse(en.URI)
	if err != nil {
		t.Fatal(err)
	}
	if u.Query().Get("issuer") != "Acme Vault" || !strings.HasPrefix(u.Path, "/Acme Vault:") {
		t.Fatalf("otpauth URI %q, want the issuer Acme Vault", en.URI)
	}
}

// TestPasskeysInABrowser drives Chromium's virtual authenticator (the
// DevTools protocol's WebAuthn domain) against the binary
// (web/ui/e2e/passkey.mjs holds the steps): a new account adds a passkey
// named "Test laptop" in Settings → Security, sees it listed, renames it,
// signs out and signs in with the passkey button without a password, lands
// on the dashboard, and removes the passkey; axe finds nothing on Settings
// → Security and the sign-in page in light and dark.
func TestPasskeysInABrowser(t *testing.T) {
	b := needBrowser(t)
	srv := startLocalhostServer(t, t.TempDir())

	b.run(t, srv, 3*time.Minute, "passkey.mjs")
}

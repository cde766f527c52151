package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logout while the server is down: the login is kept and the error points
// at --force; --force forgets it, says the token (by the name the web app
// lists it under) may still be valid and how to revoke it, and the server,
// back, still takes the token.
func TestLogoutForceWhenTheServerIsUnreachable(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	signUp(t, srv.url, "ann@example.com")

	home := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "HOME=" + home}
	r := runWithStdin(t, home, env, clusterPassword+"\n", "login", "--server", srv.url, "--email", "ann@example.com", "--password-stdin")
	if r.code != 0 {
		t.Fatalf("login: %+v", r)
	}
	path := filepath.Join(home, "config", "sendlater", "login.json")
	var kept struct{ Token, TokenID, TokenName string }
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &kept); err != nil || kept.Token == "" || !strings.HasPrefix(kept.TokenName, "sendlater on ") {
		t.Fatalf("kept: %s %v", b, err)
	}
	srv.stop(t)

	r = run(t, home, env, "logout")
	if r.code != 1 || !strings.Contains(r.stderr, "the login is kept") || !strings.Contains(r.stderr, "logout --force") {
		t.Fatalf("logout with the server down: %+v", r)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the login is gone after a failed logout: %v", err)
	}

	r = run(t, home, env, "logout", "--force")
	if r.code != 0 {
		t.Fatalf("logout --force: %+v", r)
	}
	for _, want := range []string{"Forgot the login for ann@example.com at " + srv.url, "could not be revoked",
		"The token \"" + kept.TokenName + "\" (made on ", ") may still be valid on the server",
		"Revoke it in the web app's access tokens (" + srv.url + "/settings/general)", srv.url + "/settings/password",
		"revokes every access token"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("logout --force does not say %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the login file is still there: %v", err)
	}
	r = run(t, home, env, "whoami")
	if r.code != 1 || !strings.Contains(r.stderr, "not signed in") {
		t.Fatalf("whoami after logout --force: %+v", r)
	}

	// What it said is true: the token still works on the server.
	again := startServer(t, dir)
	if code := meStatus(t, again.url, kept.Token); code != http.StatusOK {
		t.Fatalf("the forgotten token answers %d, want 200", code)
	}
	// With the server up, --force revokes as a plain logout does.
	r = runWithStdin(t, home, env, clusterPassword+"\n", "login", "--server", again.url, "--email", "ann@example.com", "--password-stdin")
	if r.code != 0 {
		t.Fatalf("login again: %+v", r)
	}
	b, _ = os.ReadFile(path)
	json.Unmarshal(b, &kept)
	r = run(t, home, env, "logout", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "the token is revoked") {
		t.Fatalf("logout --force with the server up: %+v", r)
	}
	if code := meStatus(t, again.url, kept.Token); code != http.StatusUnauthorized {
		t.Fatalf("the revoked token answers %d", code)
	}
}

package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// bearerCall sends a JSON request with a bearer token and decodes the
// envelope's data into out.
func bearerCall(t *testing.T, method, url, bearer string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Status != "success" {
		t.Fatalf("%s %s: %d %+v %v", method, url, resp.StatusCode, env, err)
	}
	if out != nil {
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// `sendlater login` asks an account with an authenticator app for its
// code (stdin's next line with --password-stdin); `users show` shows the
// factor and `users reset-2fa` removes it, after which the password alone
// logs in.
func TestLoginWithACodeAndTheOperatorsReset(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	s := signUp(t, srv.url, "ann@example.com")
	var en struct{ Secret string }
	bearerCall(t, "POST", srv.url+"/api/me/totp", s.idToken, nil, &en)
	code, _ := totp.GenerateCode(en.Secret, time.Now())
	bearerCall(t, "POST", srv.url+"/api/me/totp/confirm", s.idToken, map[string]string{"code": code}, nil)

	home := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "HOME=" + home}
	login := func(stdin string) result {
		return runWithStdin(t, home, env, stdin, "login", "--server", srv.url, "--email", "ann@example.com", "--password-stdin")
	}
	if r := login(clusterPassword + "\n"); r.code == 0 || !strings.Contains(r.stderr, "asks for a code") {
		t.Fatalf("login without a code: %+v", r)
	}
	// The confirming code's step is used: the next one's code.
	next, _ := totp.GenerateCode(en.Secret, time.Now().Add(30*time.Second))
	if r := login(clusterPassword + "\n" + next + "\n"); r.code != 0 || !strings.Contains(r.stdout, "Signed in to") {
		t.Fatalf("login with a code: %+v", r)
	}

	r := mustRun(t, dir, "users", "show", "ann@example.com")
	if !strings.Contains(r.stdout, "authenticator app since") || !strings.Contains(r.stdout, "10 recovery codes left") {
		t.Fatalf("users show:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "users", "reset-2fa", "ann@example.com")
	if !strings.Contains(r.stdout, "has no second factor now") {
		t.Fatalf("users reset-2fa:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "users", "show", "ann@example.com")
	if !strings.Contains(r.stdout, "password or provider alone") {
		t.Fatalf("users show after the reset:\n%s", r.stdout)
	}
	r = mustRun(t, dir, "audit", "list")
	if !strings.Contains(r.stdout, "users.reset-2fa") {
		t.Fatalf("audit list:\n%s", r.stdout)
	}
	if r := login(clusterPassword + "\n"); r.code != 0 {
		t.Fatalf("login after the reset: %+v", r)
	}
}

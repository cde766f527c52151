package main_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// `sendlater login` in a real terminal (tmux running a shell), as a person
// types it: with a password and an authenticator app's code, and by the
// device flow approved in the web app. With SENDLATER_WRITE_TRANSCRIPTS=1
// the screens are written to docs/cli/login-totp.txt and
// docs/cli/login-device.txt.

// startShell runs bash (no rc files, the prompt "$ ") with the built binary on PATH in a tmux pane.
func startShell(t *testing.T, home string, env []string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("SENDLATER_REQUIRE_TERMINAL") == "1" {
			t.Fatal("tmux is required (run `make test`)")
		}
		t.Skip("needs tmux for a terminal (`make test` provides it)")
	}
	term := &terminal{t: t, socket: fmt.Sprintf("sendlater-login-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := exec.Command("tmux", "-L", term.socket, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "160", "-y", "40",
		"PS1='$ ' exec bash --norc --noprofile -i")
	cmd.Dir = home
	cmd.Env = append(cleanEnv(), append(env, "TERM=xterm-256color",
		"PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", term.socket, "kill-server").Run() })
	term.waitPrompt()
	return term
}

// typeLine types s and Enter.
func (term *terminal) typeLine(s string) {
	term.t.Helper()
	term.press("-l", s)
	term.press("Enter")
}

// waitEchoOff waits until the pane's terminal stopped echoing (a
// password being read): the prompt shows a moment before that, and what a
// test typed in between would be echoed.
func (term *terminal) waitEchoOff() {
	term.t.Helper()
	tty, err := term.tmux("display-message", "-p", "-t", "t", "#{pane_tty}")
	if err != nil {
		term.t.Fatalf("pane_tty: %v %s", err, tty)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command("stty", "-F", strings.TrimSpace(tty), "-a").CombinedOutput()
		if err != nil {
			term.t.Fatalf("stty: %v %s", err, out)
		}
		if slices.Contains(strings.Fields(string(out)), "-echo") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	term.t.Fatal("the terminal still echoes")
}

// waitPrompt waits for the shell's prompt on the screen's last line.
func (term *terminal) waitPrompt() string {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		s := "\n" + strings.TrimRight(term.screen(), "\n ")
		if strings.HasSuffix(s, "\n$") {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	term.t.Fatalf("no prompt came back:\n%s", term.screen())
	return ""
}

// transcript is what the terminal showed, its temporary home as ~; with
// SENDLATER_WRITE_TRANSCRIPTS=1 it is written to docs/cli/name.
func (term *terminal) transcript(home, name string) string {
	term.t.Helper()
	s, _ := term.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
	s = strings.ReplaceAll(strings.TrimRight(s, "\n ")+"\n", home, "~")
	if os.Getenv("SENDLATER_WRITE_TRANSCRIPTS") == "1" {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "cli", name), []byte(s), 0o644); err != nil {
			term.t.Fatal(err)
		}
	}
	return s
}

// A password and an authenticator app's code, typed; whoami then works
// with the token login kept.
func TestLoginWithACodeInATerminal(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	s := signUp(t, srv.url, "ann@example.com")
	var en struct{ Secret string }
	bearerCall(t, "POST", srv.url+"/api/me/totp", s.idToken, nil, &en)
	code, _ := totp.GenerateCode(en.Secret, time.Now())
	bearerCall(t, "POST", srv.url+"/api/me/totp/confirm", s.idToken, map[string]string{"code": code}, nil)

	home := t.TempDir()
	term := startShell(t, home, []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "HOME=" + home})
	term.typeLine("sendlater login --server " + srv.url + " --email ann@example.com")
	term.waitFor("Password:")
	term.waitEchoOff()
	term.typeLine(clusterPassword)
	term.waitFor("Code from your authenticator app (or a recovery code):")
	// The confirming code's step is used: the next step's code.
	next, _ := totp.GenerateCode(en.Secret, time.Now().Add(30*time.Second))
	term.typeLine(next)
	term.waitFor("Signed in to " + srv.url + " as ann@example.com")
	term.waitPrompt()
	term.typeLine("sendlater whoami")
	term.waitFor("ann@example.com (no name) at " + srv.url)
	term.waitPrompt()

	out := term.transcript(home, "login-totp.txt")
	if strings.Contains(out, clusterPassword) {
		t.Fatalf("the password was echoed:\n%s", out)
	}
	if !strings.Contains(out, "which may read and write your messages") || !strings.Contains(out, "~/config/sendlater/login.json") {
		t.Fatalf("transcript:\n%s", out)
	}
}

var userCodeOnScreen = regexp.MustCompile(`\b[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}\b`)

// The device flow: login prints a code and a URL, the signed-in owner
// approves the code in the web app (here its API, as the /device page
// calls it), login gets its token, and whoami works with it.
func TestLoginByDeviceFlowInATerminal(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	s := signUp(t, srv.url, "ann@example.com")

	home := t.TempDir()
	term := startShell(t, home, []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "HOME=" + home})
	term.typeLine("sendlater login --server " + srv.url + " --device")
	screen := term.waitFor("Waiting for the approval...")
	code := userCodeOnScreen.FindString(screen)
	if code == "" || !strings.Contains(screen, srv.url+"/device?code="+code) || !strings.Contains(screen, "expires in 10 minutes") {
		t.Fatalf("the screen:\n%s", screen)
	}
	var req struct{ ClientName, Device string }
	bearerCall(t, "POST", srv.url+"/api/me/device", s.idToken, map[string]string{"userCode": strings.ToLower(code)}, &req)
	if !strings.HasPrefix(req.ClientName, "sendlater on ") || !strings.HasPrefix(req.Device, "Sendlater CLI") {
		t.Fatalf("the page would show %+v", req)
	}
	bearerCall(t, "POST", srv.url+"/api/me/device/approve", s.idToken, map[string]string{"userCode": code}, nil)
	term.waitFor("Signed in to " + srv.url + " as ann@example.com")
	term.waitPrompt()
	term.typeLine("sendlater whoami")
	term.waitFor("ann@example.com (no name) at " + srv.url)
	term.waitPrompt()

	out := term.transcript(home, "login-device.txt")
	if !strings.Contains(out, "which may read and write your messages") {
		t.Fatalf("transcript:\n%s", out)
	}
	// The code was used: approving it again finds nothing.
	r := postStatus(t, srv.url+"/api/me/device/approve", s.idToken, `{"userCode":"`+code+`"}`)
	if r != 400 {
		t.Fatalf("approving a used code: %d", r)
	}
}

// postStatus is the status of a JSON POST with a bearer token.
func postStatus(t *testing.T, url, bearer, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

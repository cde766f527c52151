package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/web"
)

// login, whoami, tui and logout, end to end: the built binary against a
// running `sendlater serve`, the TUI in a real terminal (tmux), and
// `tui --user` on the server's host with and without the server.

// terminal is the built binary running in a tmux pane of its own server.
type terminal struct {
	t      *testing.T
	socket string
}

func startTerminal(t *testing.T, dir string, env []string, width, height int, args ...string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		// make test installs tmux (scripts/ensure-tools.sh) and requires it.
		if os.Getenv("SENDLATER_REQUIRE_TERMINAL") == "1" {
			t.Fatal("tmux is required (run `make test`)")
		}
		t.Skip("needs tmux for a terminal (`make test` provides it)")
	}
	term := &terminal{t: t, socket: fmt.Sprintf("sendlater-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	line := binary + " " + strings.Join(args, " ")
	cmd := exec.Command("tmux", "-L", term.socket, "-f", "/dev/null", "new-session", "-d", "-s", "t",
		"-x", fmt.Sprint(width), "-y", fmt.Sprint(height), line)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), append(env, "TERM=xterm-256color")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", term.socket, "kill-server").Run() })
	return term
}

func (term *terminal) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", term.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (term *terminal) screen() string {
	s, _ := term.tmux("capture-pane", "-p", "-t", "t")
	return s
}

// fillNewMessage opens the form of a new message from the empty list and
// types its title, Bob as its recipient and text, without saving.
func (term *terminal) fillNewMessage(title, text string) {
	term.waitFor("No messages yet")
	term.press("n")
	term.waitFor("Create Message")
	term.press("-l", title)
	term.press("Tab")
	term.press("-l", "Bob")
	term.press("Tab")
	term.press("-l", "bob@example.com")
	term.press("Tab", "Tab")
	term.press("-l", text)
}

func (term *terminal) press(keys ...string) {
	term.t.Helper()
	if out, err := term.tmux(append([]string{"send-keys", "-t", "t"}, keys...)...); err != nil {
		term.t.Fatalf("send-keys: %v %s", err, out)
	}
}

func (term *terminal) waitFor(want string) string {
	term.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s := term.screen(); strings.Contains(s, want) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	term.t.Fatalf("the terminal never showed %q:\n%s", want, term.screen())
	return ""
}

// waitExit waits until the program ended (its pane, and so tmux, closed).
func (term *terminal) waitExit() {
	term.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := term.tmux("has-session", "-t", "t"); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	term.t.Fatalf("the program did not end:\n%s", term.screen())
}

// createMessage makes a message through the API as the holder of token.
func createMessage(t *testing.T, url, token, title string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"title": title, "name": "Bob", "recipient": "bob@example.com", "message": "The key is under the blue pot."})
	req, _ := http.NewRequest("POST", url+"/api/messages", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("create: %d", resp.StatusCode)
	}
}

// profileStatus is the status of a change of the profile's name with token.
func profileStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("PATCH", url+"/api/me", strings.NewReader(`{"name":"Mallory"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func meStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/api/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestLoginTUIAndLogoutFromAnotherMachine(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	ann := signUp(t, srv.url, "ann@example.com")
	createMessage(t, srv.url, ann.idToken, "Letter to Bob")

	// "Another machine": its own working directory and config directory.
	home := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "HOME=" + home}

	r := runWithStdin(t, home, env, "not the password\n", "login", "--server", srv.url, "--email", "ann@example.com", "--password-stdin")
	if r.code != 1 || !strings.Contains(r.stderr, "password") {
		t.Fatalf("a wrong password: %+v", r)
	}
	r = runWithStdin(t, home, env, "", "login", "--server", srv.url, "--email", "ann@example.com")
	if r.code == 0 || !strings.Contains(r.stderr, "use --password-stdin") {
		t.Fatalf("a password from a pipe without --password-stdin: %+v", r)
	}
	r = runWithStdin(t, home, env, clusterPassword+"\n", "login", "--server", srv.url, "--email", "ann@example.com", "--password-stdin")
	if r.code != 0 || !strings.Contains(r.stdout, "Signed in to "+srv.url+" as ann@example.com") {
		t.Fatalf("login: %+v", r)
	}
	path := filepath.Join(home, "config", "sendlater", "login.json")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the login file: %v %v", fi, err)
	}
	var kept struct{ Server, Token string }
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &kept)
	if kept.Server != srv.url || kept.Token == "" {
		t.Fatalf("kept: %s", b)
	}
	if code := meStatus(t, srv.url, kept.Token); code != http.StatusOK {
		t.Fatalf("the kept token answers %d", code)
	}
	// The token may read and write messages, what the TUI needs, and login
	// says so; the account is not its to change.
	if !strings.Contains(r.stdout, "which may read and write your messages (messages:read, messages:write) but not change your account") {
		t.Fatalf("login does not say what the token may do: %+v", r)
	}
	if code := profileStatus(t, srv.url, kept.Token); code != http.StatusForbidden {
		t.Fatalf("the kept token changes the profile: %d", code)
	}
	// Logging in again replaces the login and revokes the token it held.
	r = runWithStdin(t, home, env, clusterPassword+"\n", "login", "--server", srv.url, "--email", "ann@example.com", "--password-stdin")
	if r.code != 0 {
		t.Fatalf("login again: %+v", r)
	}
	if code := meStatus(t, srv.url, kept.Token); code != http.StatusUnauthorized {
		t.Fatalf("the replaced token answers %d", code)
	}
	b, _ = os.ReadFile(path)
	json.Unmarshal(b, &kept)

	r = runWithStdin(t, home, env, "", "whoami")
	if r.code != 0 || !strings.Contains(r.stdout, "ann@example.com") || !strings.Contains(r.stdout, "at "+srv.url+", on the Free plan") {
		t.Fatalf("whoami: %+v", r)
	}

	term := startTerminal(t, home, env, 120, 40, "tui")
	term.waitFor("Letter to Bob")
	term.waitFor("ann@example.com · " + srv.url)
	term.press("p") // made today: a postpone would not move the date, and the TUI says so
	term.waitFor("Postponing today would not move the date")
	term.press("space")
	s := term.waitFor("The message is paused.")
	if !strings.Contains(s, "paused") || !strings.Contains(s, "q quit") {
		t.Fatalf("the screen:\n%s", s)
	}
	term.press("q")
	term.waitExit()

	r = runWithStdin(t, home, env, "", "logout")
	if r.code != 0 || !strings.Contains(r.stdout, "Signed out of "+srv.url) {
		t.Fatalf("logout: %+v", r)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the login file is still there: %v", err)
	}
	if code := meStatus(t, srv.url, kept.Token); code != http.StatusUnauthorized {
		t.Fatalf("the revoked token answers %d", code)
	}
	r = runWithStdin(t, home, env, "", "whoami")
	if r.code != 1 || !strings.Contains(r.stderr, "not signed in") {
		t.Fatalf("whoami after logout: %+v", r)
	}
	r = runWithStdin(t, home, env, "", "tui")
	if r.code != 1 || !strings.Contains(r.stderr, "not signed in") {
		t.Fatalf("tui after logout: %+v", r)
	}
}

// tui --user on the server's host: through the admin socket while the
// server runs, through the store once it stopped.
func TestTUIForAUserOnTheServersHost(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	ann := signUp(t, srv.url, "ann@example.com")
	createMessage(t, srv.url, ann.idToken, "Letter to Bob")
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}

	term := startTerminal(t, dir, env, 80, 24, "tui", "--user", "ann@example.com")
	term.waitFor("the server's admin socket")
	term.waitFor("Letter to Bob")
	term.press("q")
	term.waitExit()

	srv.stop(t)
	term = startTerminal(t, dir, env, 80, 24, "tui", "--user", "ann@example.com")
	term.waitFor("the store ")
	term.waitFor("Letter to Bob")
	term.press("p") // made today: a postpone would not move the date, and the TUI says so
	term.waitFor("Postponing today would not move the date")
	term.press("Space")
	term.waitFor("The message is paused.")
	term.press("q")
	term.waitExit()

	r := run(t, dir, env, "tui", "--user", "nobody@example.com")
	if r.code != 1 || !strings.Contains(r.stderr, "could not be found") {
		t.Fatalf("an unknown user: %+v", r)
	}

	// Both sessions are in the audit log: the bodies the operator read
	// through the socket and through the store, and the pause (the postpone
	// that would have moved nothing was not made).
	var log []web.AuditEntryJSON
	if err := json.Unmarshal([]byte(mustRun(t, dir, "audit", "list", "--json").stdout), &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		if e.Actor == "" || e.Actor == "unknown" {
			t.Errorf("no operator: %+v", e)
		}
		got = append(got, e.Action+" "+e.Detail)
	}
	want := []string{"messages.reveal opened the live list", "messages.update edited, for ann@example.com"}
	for _, w := range want[1:] {
		if !slices.Contains(got, w) {
			t.Errorf("audit log %q lacks %q", got, w)
		}
	}
	for _, e := range got {
		if strings.HasPrefix(e, "messages.postpone") {
			t.Errorf("audit log %q: a postpone that moved nothing is recorded", got)
		}
	}
	if n := strings.Count(strings.Join(got, "\n"), want[0]); n < 2 {
		t.Errorf("audit log %q: %d live lists opened, want one a session", got, n)
	}
}

// The form of a message to 10 people in a real 80x24 terminal: tab reaches
// the message box, the last field, with the delivery date under it on
// screen, and the line above says there is more.
func TestTUIFormWithTenRecipientsAt80x24(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	ann := signUp(t, srv.url, "ann@example.com")
	mustRun(t, dir, "users", "set-plan", "ann@example.com", "pro")
	var rs []map[string]string
	for i := 1; i <= 10; i++ {
		rs = append(rs, map[string]string{"name": fmt.Sprintf("Person %d", i), "recipient": fmt.Sprintf("p%d@example.com", i)})
	}
	b, _ := json.Marshal(map[string]any{"title": "For ten", "recipients": rs, "message": "The key is under the blue pot."})
	req, _ := http.NewRequest("POST", srv.url+"/api/messages", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+ann.idToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}

	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	term := startTerminal(t, dir, env, 80, 24, "tui", "--user", "ann@example.com")
	term.waitFor("For ten")
	term.press("e")
	s := term.waitFor("↓ more below")
	if !strings.Contains(s, "› Title") || strings.Contains(s, "The message will be delivered on") {
		t.Fatalf("the form's first screen:\n%s", s)
	}
	for range 22 { // the title, ten rows of two, the interval: the message
		term.press("Tab")
	}
	s = term.waitFor("› Message")
	for _, want := range []string{"↑ more above", "Person 10", "The key is under the blue pot.", "The message will be delivered on", "tab next"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the last field's screen has no %q:\n%s", want, s)
		}
	}
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); len(lines) > 24 {
		t.Fatalf("%d lines on a 24-line terminal", len(lines))
	}
	term.press("Escape")
	term.waitFor("The draft is discarded.")
	term.press("q")
	term.waitExit()
}

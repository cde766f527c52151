package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/web/ui"
)

// chromium returns the path of a headless-capable Chromium, or skips the test.
// `make test` installs it and sets SENDLATER_REQUIRE_BROWSER=1 so that the
// browser tests can never be skipped silently there.
func chromium(t *testing.T) string {
	t.Helper()
	required := os.Getenv("SENDLATER_REQUIRE_BROWSER") == "1"
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil && ui.Built() {
			return path
		}
	}
	if required {
		t.Fatal("chromium and the built web app are required (run `make test`)")
	}
	t.Skip("needs chromium and the built web app (`make test` provides both)")
	return ""
}

// browserSuite returns node and the SPA's browser suite, or skips the test
// when node or web/ui's node_modules (playwright-core, axe-core) are
// missing, unless SENDLATER_REQUIRE_BROWSER=1, as chromium() does.
func browserSuite(t *testing.T) (node, script string) {
	t.Helper()
	ui := filepath.Join("..", "..", "web", "ui")
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(filepath.Join(ui, "node_modules", "@axe-core", "playwright", "package.json"))
	if err == nil && statErr == nil {
		return node, filepath.Join(ui, "e2e", "suite.mjs")
	}
	if os.Getenv("SENDLATER_REQUIRE_BROWSER") == "1" {
		t.Fatal("node and web/ui/node_modules are required (run `make test`)")
	}
	t.Skip("needs node and web/ui/node_modules (`make test` provides both)")
	return "", ""
}

// TestWebAppInABrowser drives one headless Chromium against the real binary
// (web/ui/e2e/suite.mjs holds the steps): every route as an anonymous
// visitor (its HTTP status, 404 included, one h1, its title, no console
// error or failing request, no serious axe violation in light and dark);
// then a user's first visit: sign up, create a message, the modal dialog's
// focus trap, a paused message's disabled Postpone, delete's confirmation,
// an access token made, listed and revoked in the settings (the API then
// refuses it), sign out and in again, a reload, the redirect away from sign
// in, the theme surviving a reload and the drawer at 390 px; then the
// second factor (e2e/twofactor.mjs): an authenticator app set up with codes
// the suite computes, sign-ins with its code and with a recovery code.
func TestWebAppInABrowser(t *testing.T) {
	b := needBrowser(t)
	dir := t.TempDir()
	srv := startServer(t, dir)

	b.run(t, srv, 6*time.Minute, "suite.mjs")
	assertPageViewsCounted(t, dir)
}

// assertPageViewsCounted checks what the suite's pages told the first-party
// counter: the public pages each time they were shown (light and dark), by
// their canonical path, and no signed-in page, email link or 404.
func assertPageViewsCounted(t *testing.T, dir string) {
	t.Helper()
	var counts []struct {
		Path  string
		Views int
	}
	r := mustRun(t, dir, "stats", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &counts); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, r.stdout)
	}
	views := map[string]int{}
	for _, c := range counts {
		views[c.Path] += c.Views
	}
	for _, path := range []string{"/", "/about", "/faq", "/contact", "/pricing", "/legal/privacy-policy"} {
		if views[path] < 2 {
			t.Errorf("%s counted %d times, want at least 2 (light and dark): %v", path, views[path], views)
		}
	}
	// /legal/cookies shows the terms, /auth/other the sign-up page.
	if views["/legal/terms-of-service"] < 4 || views["/auth/signup"] < 4 {
		t.Errorf("fallback pages not counted under their canonical path: %v", views)
	}
	for path := range views {
		if !slices.Contains([]string{"/", "/about", "/faq", "/contact", "/pricing", "/legal/terms-of-service",
			"/legal/privacy-policy", "/auth/signup", "/auth/signin", "/auth/forgotpass", "/auth/changepass"}, path) {
			t.Errorf("%s was counted: only public pages are (%v)", path, views)
		}
	}
}

// TestDomainWarningInABrowser drives Chromium against the binary asking an
// in-process DNS server (web/ui/e2e/domain-warning.mjs holds the steps): a
// message to a domain without mail is saved and its dialog shows the
// warning under the address; the fixed address saves without one.
func TestDomainWarningInABrowser(t *testing.T) {
	b := needBrowser(t)
	dns := dnstest.MustStart(t)
	dns.Add(t, "example.com. 300 IN MX 10 mx.example.com.", `lapsed.example. 300 IN TXT "parked"`)
	srv := startServer(t, t.TempDir(), "SENDLATER_MAIL_DNS_SERVER="+dns.Addr)

	b.run(t, srv, 3*time.Minute, "domain-warning.mjs")
}

// proAuthorServer starts the binary on a new data directory with the SMTP
// test server as its relay, and signs email up on it as a Pro author: the
// start of the browser tests that deliver.
func proAuthorServer(t *testing.T, email, password string) (mail *smtptest.Server, dir string, env []string, srv *server) {
	t.Helper()
	mail = smtptest.Start(t)
	dir = t.TempDir()
	env = smtpEnv(mail)
	srv = startServer(t, dir, env...)
	signUpAuthor(t, srv, email, password)
	mustRunEnv(t, dir, env, "users", "set-plan", email, "pro")
	return mail, dir, env, srv
}

// signUpAuthor signs email up on srv over the API, as a browser test's
// author.
func signUpAuthor(t *testing.T, srv *server, email, password string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	resp, err := http.Post(srv.url+"/api/auth/signup", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("sign up: %v %v", resp, err)
	}
	resp.Body.Close()
}

// verifyFirstEmail follows the link of the verification email, the first
// email mail received: tests, notices and the like go only to a confirmed
// address.
func verifyFirstEmail(t *testing.T, srv *server, mail *smtptest.Server) {
	t.Helper()
	sent, err := mail.WaitFor(1, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	verify, err := sent[0].Parse()
	if err != nil {
		t.Fatal(err)
	}
	link, err := url.Parse(verify.Link(srv.url + "/firebase-action"))
	if err != nil || link.Query().Get("oobCode") == "" {
		t.Fatalf("the verification email's link: %q, %v", verify.Links(), err)
	}
	if code, _ := authCall(t, srv.url, "/api/auth/action/apply", map[string]string{"oobCode": link.Query().Get("oobCode")}, ""); code != http.StatusOK {
		t.Fatalf("following the verification link: %d", code)
	}
}

// browserTools is what a browser test runs: node, the e2e folder and the
// Chromium, or the test is skipped (or fails where they are required).
type browserTools struct{ node, e2e, chromium string }

func needBrowser(t *testing.T) browserTools {
	t.Helper()
	chromium := chromium(t)
	node, suite := browserSuite(t)
	return browserTools{node: node, e2e: filepath.Dir(suite), chromium: chromium}
}

// run runs the e2e script name (say "bounce.mjs") against srv with args
// after its address, within d, and fails the test with the script's output
// and the server's log when it fails.
func (b browserTools) run(t *testing.T, srv *server, d time.Duration, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.node, append([]string{filepath.Join(b.e2e, name), srv.url}, args...)...)
	cmd.Env = append(cleanEnv(), "CHROMIUM="+b.chromium)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s failed: %v\n%s\nserver log:\n%s", name, strings.Join(args, " "), err, out, srv.logs)
	}
	t.Logf("%s", out)
}

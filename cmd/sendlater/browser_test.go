package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// renderDOM loads url in headless Chromium, lets its scripts run, and returns
// the rendered DOM and what the browser logged.
func renderDOM(t *testing.T, browser, url string) (dom, logs string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0",
		"--dump-dom", url)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	return out.String(), errb.String()
}

// TestHomePageInABrowser proves the whole pipeline: the SPA is built,
// embedded, served by `sendlater serve`, and renders in a real browser under
// the server's Content-Security-Policy.
func TestHomePageInABrowser(t *testing.T) {
	browser := chromium(t)
	srv := startServer(t, t.TempDir())

	dom, logs := renderDOM(t, browser, srv.url+"/")
	for _, want := range []string{
		"Send important messages when the time is right!",
		"All the steps you need to secure your message",
		"Here's what people are saying",
		"Ready to get started?",
		"Get Started",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the home page lacks %q", want)
		}
	}
	for _, bad := range []string{"Refused to", "Uncaught", "Content Security Policy"} {
		if strings.Contains(logs, bad) {
			t.Errorf("the browser logged %q:\n%s", bad, logs)
		}
	}

	dom, _ = renderDOM(t, browser, srv.url+"/no/such/page")
	if !strings.Contains(dom, "The page /no/such/page could not be found") {
		t.Errorf("unknown paths must show the SPA's 404 page")
	}
}

package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
// sign out and in again, a reload, the redirect away from sign in, the
// theme surviving a reload and the drawer at 390 px.
func TestWebAppInABrowser(t *testing.T) {
	browser := chromium(t)
	node, script := browserSuite(t)
	srv := startServer(t, t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, srv.url)
	cmd.Env = append(cleanEnv(), "CHROMIUM="+browser)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the browser suite failed: %v\n%s\nserver log:\n%s", err, out, srv.logs)
	}
	t.Logf("%s", out)
}

package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// flowScript returns node and the SPA's end-to-end script, or skips the test
// when node or web/ui's node_modules (playwright-core) are missing, unless
// SENDLATER_REQUIRE_BROWSER=1, as chromium() does.
func flowScript(t *testing.T) (node, script string) {
	t.Helper()
	ui := filepath.Join("..", "..", "web", "ui")
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(filepath.Join(ui, "node_modules", "playwright-core", "package.json"))
	if err == nil && statErr == nil {
		return node, filepath.Join(ui, "e2e", "flow.mjs")
	}
	if os.Getenv("SENDLATER_REQUIRE_BROWSER") == "1" {
		t.Fatal("node and web/ui/node_modules are required (run `make test`)")
	}
	t.Skip("needs node and web/ui/node_modules (`make test` provides both)")
	return "", ""
}

// TestSignUpFlowInABrowser drives headless Chromium through a user's first
// visit against the real binary: sign up, the dashboard, create a message and
// see it listed, sign out, sign in again and find it still there (and after a
// reload, from the refresh cookie alone). web/ui/e2e/flow.mjs holds the steps.
func TestSignUpFlowInABrowser(t *testing.T) {
	browser := chromium(t)
	node, script := flowScript(t)
	srv := startServer(t, t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, srv.url)
	cmd.Env = append(cleanEnv(), "CHROMIUM="+browser)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the flow failed: %v\n%s\nserver log:\n%s", err, out, srv.logs)
	}
}

package main_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestComposerInABrowser drives web/ui/e2e/composer.mjs against the real
// binary: a writer's letter autosaved (on the device and on the server),
// back after a reload and on another device, Escape asking before leaving a
// changed draft and keeping it, Ctrl+S saving and leaving no draft, and the
// composer near full-screen with its primary action in sight at 1280x800,
// 1440x900 and 390x844 in both themes, axe clean.
func TestComposerInABrowser(t *testing.T) {
	browser := chromium(t)
	node, suite := browserSuite(t)
	script := filepath.Join(filepath.Dir(suite), "composer.mjs")
	srv := startServer(t, t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, srv.url)
	cmd.Env = append(cleanEnv(), "CHROMIUM="+browser)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("composer.mjs failed: %v\n%s\nserver log:\n%s", err, out, srv.logs)
	}
	t.Logf("%s", out)
}

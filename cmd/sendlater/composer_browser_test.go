package main_test

import (
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
	b := needBrowser(t)
	srv := startServer(t, t.TempDir())

	b.run(t, srv, 4*time.Minute, "composer.mjs")
}

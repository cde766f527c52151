package main_test

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDeviceSignInInABrowser: `sendlater login --device` prints its link;
// Chromium opens it signed out, signs in, comes back with the code, and
// approves it (web/ui/e2e/device.mjs, axe in light and dark); login then
// ends with the token, and whoami works with it.
func TestDeviceSignInInABrowser(t *testing.T) {
	browser := chromium(t)
	node, suite := browserSuite(t)
	srv := startServer(t, t.TempDir())
	signUp(t, srv.url, "ann@example.com")

	home := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "HOME=" + home}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	login := exec.CommandContext(ctx, binary, "login", "--server", srv.url, "--device")
	login.Dir, login.Env = home, append(cleanEnv(), env...)
	stderr, err := login.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	login.Stdout = &stdout
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`https?://\S+/device\?code=\S+`)
	lines := bufio.NewScanner(stderr)
	var url string
	for url == "" && lines.Scan() {
		url = link.FindString(lines.Text())
	}
	go func() {
		for lines.Scan() {
		}
	}()
	if url == "" {
		t.Fatal("login --device printed no link")
	}

	cmd := exec.CommandContext(ctx, node, filepath.Join(filepath.Dir(suite), "device.mjs"), srv.url, url, "ann@example.com", clusterPassword)
	cmd.Env = append(cleanEnv(), "CHROMIUM="+browser)
	out, err := cmd.CombinedOutput()
	if err != nil {
		login.Process.Kill()
		t.Fatalf("the browser checks failed: %v\n%s\nserver log:\n%s", err, out, srv.logs)
	}
	t.Logf("%s", out)
	if err := login.Wait(); err != nil || !strings.Contains(stdout.String(), "Signed in to "+srv.url+" as ann@example.com") {
		t.Fatalf("login --device: %v\n%s", err, stdout.String())
	}
	if r := runWithStdin(t, home, env, "", "whoami"); r.code != 0 || !strings.Contains(r.stdout, "ann@example.com") {
		t.Fatalf("whoami: %+v", r)
	}
}

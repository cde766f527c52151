// Package stripemock runs stripe-mock (github.com/stripe/stripe-mock), the
// Stripe API peer of the billing tests, as a child process on 127.0.0.1.
//
// `make test` installs it (scripts/ensure-tools.sh) into bin/. Without it
// the tests that need it skip with one line, unless SENDLATER_REQUIRE_STRIPE
// is 1 (CI), where they fail.
package stripemock

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Version is the stripe-mock release the tests are written against.
const Version = "v0.203.0"

// Server is a running stripe-mock.
type Server struct {
	URL      string // http://127.0.0.1:PORT
	HTTPSURL string // https://127.0.0.1:PORT, with stripe-mock's self-signed certificate
}

// Start runs stripe-mock with both listeners on 127.0.0.1 and free ports (by
// default it listens on every interface) and stops it when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := find()
	if bin == "" {
		if os.Getenv("SENDLATER_REQUIRE_STRIPE") == "1" {
			tb.Fatal("stripe-mock is required (SENDLATER_REQUIRE_STRIPE=1): run scripts/ensure-tools.sh")
		}
		tb.Skip("needs stripe-mock: `make test` installs it (go install github.com/stripe/stripe-mock@" + Version + ")")
	}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:")
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting stripe-mock: %v", err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	s := &Server{}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	var log []string
	for s.URL == "" || s.HTTPSURL == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				tb.Fatalf("stripe-mock stopped before listening:\n%s", strings.Join(log, "\n"))
			}
			log = append(log, line)
			if addr, ok := strings.CutPrefix(line, "Listening for HTTP at address: "); ok {
				s.URL = "http://" + addr
			}
			if addr, ok := strings.CutPrefix(line, "Listening for HTTPS at address: "); ok {
				s.HTTPSURL = "https://" + addr
			}
		case <-deadline:
			tb.Fatalf("stripe-mock did not listen within 30s:\n%s", strings.Join(log, "\n"))
		}
	}
	// Keep reading, so that its writes never block.
	go func() {
		for range lines {
		}
	}()
	return s
}

// find returns stripe-mock's path: SENDLATER_STRIPE_MOCK, the module's bin/
// (where `make test` installs it), $PATH, then $GOBIN or $GOPATH/bin.
func find() string {
	candidates := []string{os.Getenv("SENDLATER_STRIPE_MOCK")}
	if root := moduleRoot(); root != "" {
		candidates = append(candidates, filepath.Join(root, "bin", "stripe-mock"))
	}
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		candidates = append(candidates, p)
	}
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		candidates = append(candidates, filepath.Join(gobin, "stripe-mock"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, "go", "bin", "stripe-mock"))
	}
	if gopath := os.Getenv("GOPATH"); gopath != "" {
		candidates = append(candidates, filepath.Join(gopath, "bin", "stripe-mock"))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); c != "" && err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return c
		}
	}
	return ""
}

// moduleRoot is the nearest directory above the working directory (a test's
// package directory) that holds go.mod.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

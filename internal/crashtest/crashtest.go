// Package crashtest runs a test binary's helper process and kills it with
// SIGKILL, collecting what it acknowledged: the crash tests of the stores
// share it.
package crashtest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// RunAndKill runs the test binary again with only the test named helper
// and env added to its environment, sends it SIGKILL after d and returns
// what followed prefix on each whole line it printed (a line cut by the
// kill was never acknowledged) and its stderr. A helper that printed
// "helper:" on stderr failed the test.
func RunAndKill(t testing.TB, helper string, env []string, prefix string, d time.Duration) ([]string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var got []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				io.Copy(io.Discard, r)
				return
			}
			if v, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), prefix); ok {
				got = append(got, v)
			}
		}
	}()
	time.Sleep(d)
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred close, no flush
		t.Fatal(err)
	}
	<-done
	cmd.Wait()
	if strings.Contains(stderr.String(), "helper:") {
		t.Fatalf("the helper failed: %s", stderr.String())
	}
	return got, stderr.String()
}

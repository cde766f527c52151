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

// firstAckTimeout bounds the wait of RunAndKillAfterFirst for the helper's
// first acknowledgement: a helper still silent after it is stuck, not slow.
const firstAckTimeout = 2 * time.Minute

// RunAndKill runs the test binary again with only the test named helper
// and env added to its environment, sends it SIGKILL after d and returns
// what followed prefix on each whole line it printed (a line cut by the
// kill was never acknowledged) and its stderr. A helper that printed
// "helper:" on stderr failed the test.
func RunAndKill(t testing.TB, helper string, env []string, prefix string, d time.Duration) ([]string, string) {
	t.Helper()
	h := start(t, helper, env, prefix)
	time.Sleep(d)
	return h.kill(t)
}

// RunAndKillAfterFirst is RunAndKill with d counted from the helper's first
// acknowledged line instead of its start. A helper's start-up (the binary,
// opening the store) takes longer than any fixed delay on a loaded machine,
// and a kill before its first acknowledgement checks nothing it promised.
// It fails the test when the helper exits, or acknowledges nothing within
// two minutes.
func RunAndKillAfterFirst(t testing.TB, helper string, env []string, prefix string, d time.Duration) ([]string, string) {
	t.Helper()
	h := start(t, helper, env, prefix)
	select {
	case <-h.first:
		time.Sleep(d)
	case <-h.done:
	case <-time.After(firstAckTimeout):
	}
	got, stderr := h.kill(t)
	if len(got) == 0 {
		t.Fatalf("the helper acknowledged nothing (it exited, or was silent for %v)\nstderr: %s", firstAckTimeout, stderr)
	}
	return got, stderr
}

// helperProcess is a running helper and the reader of its stdout.
type helperProcess struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	got    []string      // written by the reader until done is closed
	first  chan struct{} // closed at the first acknowledged line
	done   chan struct{} // closed when stdout ends
}

func start(t testing.TB, helper string, env []string, prefix string) *helperProcess {
	t.Helper()
	h := &helperProcess{first: make(chan struct{}), done: make(chan struct{})}
	h.cmd = exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	h.cmd.Env = append(os.Environ(), env...)
	h.cmd.Stderr = &h.stderr
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(h.done)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				io.Copy(io.Discard, r)
				return
			}
			if v, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), prefix); ok {
				h.got = append(h.got, v)
				if len(h.got) == 1 {
					close(h.first)
				}
			}
		}
	}()
	return h
}

// kill sends the helper SIGKILL and returns what it acknowledged and its
// stderr, failing the test if the helper failed.
func (h *helperProcess) kill(t testing.TB) ([]string, string) {
	t.Helper()
	if err := h.cmd.Process.Kill(); err != nil { // SIGKILL: no deferred close, no flush
		t.Fatal(err)
	}
	<-h.done
	h.cmd.Wait()
	if strings.Contains(h.stderr.String(), "helper:") {
		t.Fatalf("the helper failed: %s", h.stderr.String())
	}
	return h.got, h.stderr.String()
}

package doctor

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// only is the one check of s, failing the test when there are more.
func only(t *testing.T, s Section) Check {
	t.Helper()
	if len(s.Checks) != 1 {
		t.Fatalf("%d checks: %+v", len(s.Checks), s.Checks)
	}
	return s.Checks[0]
}

func TestCheckClock(t *testing.T) {
	sent := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	received := sent.Add(20 * time.Millisecond)
	for _, tc := range []struct {
		db   time.Duration // the database's reading, after sent
		ok   bool
		says string
	}{
		{10 * time.Millisecond, true, "within 0s of the database's (round trip 20ms)"},
		{1500 * time.Millisecond, true, "within 1.49s of the database's"},
		{3 * time.Second, false, "this machine's clock is 2.99s behind the database's (allowed: 2s)"},
		{-5 * time.Second, false, "this machine's clock is 5.01s ahead of the database's"},
	} {
		var s Section
		s.CheckClock("clock", sent.Add(tc.db), sent, received)
		c := only(t, s)
		if c.OK != tc.ok || !strings.Contains(c.Detail, tc.says) || (!c.OK && !strings.Contains(c.Fix, "NTP")) {
			t.Errorf("database at +%s: %+v", tc.db, c)
		}
	}
}

func TestCheckWebKnowsSendlatersReply(t *testing.T) {
	reply := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != HealthPath {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		defer srv.Close()
		c := only(t, CheckWeb(context.Background(), &http.Client{Timeout: time.Second}, srv.URL))
		if c.OK {
			return "ok: " + c.Detail
		}
		return "✗ " + c.Detail + " / " + c.Fix
	}
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{200, `{"status":"ok","store":"ok","scheduler":"ok","lastPass":1}`, "ok: Sendlater answers at"},
		{200, `{"status":"degraded","store":"ok","scheduler":"stalled"}`, "its delivery is stalled"},
		{503, `{"status":"unavailable","store":"unavailable","scheduler":"off"}`, "but its store does not"},
		{200, `OK`, "not as Sendlater's health check"},
		{200, `{"status":"ok"}`, "not as Sendlater's health check"},
	} {
		if got := reply(tc.status, tc.body); !strings.Contains(got, tc.want) {
			t.Errorf("%d %s: %s", tc.status, tc.body, got)
		}
	}

	// A server that never answers: the client's timeout bounds the wait.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	c := only(t, CheckWeb(context.Background(), &http.Client{Timeout: 200 * time.Millisecond}, "http://"+ln.Addr().String()))
	if c.OK || time.Since(start) > 5*time.Second || !strings.Contains(c.Detail, "Client.Timeout") {
		t.Errorf("a silent server: %+v after %s", c, time.Since(start))
	}
}

func TestCheckModes(t *testing.T) {
	if !modesApply {
		t.Skip("file modes are not checked here")
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte("k"), 0o640); err != nil {
		t.Fatal(err)
	}
	var s Section
	s.CheckPrivateFile("key", "encryption_key_file", key)
	if c := only(t, s); c.OK || c.Fix != "chmod 600 "+key || !strings.Contains(c.Detail, "mode 0640") {
		t.Errorf("a group-readable key: %+v", c)
	}
	os.Chmod(key, 0o400)
	s = Section{}
	s.CheckPrivateFile("key", "encryption_key_file", key)
	if c := only(t, s); !c.OK {
		t.Errorf("a key of mode 0400: %+v", c)
	}

	os.Chmod(dir, 0o750)
	s = Section{}
	s.CheckPrivateDir("data", dir)
	if c := only(t, s); c.OK || c.Fix != "chmod 700 "+dir {
		t.Errorf("a data directory of mode 0750: %+v", c)
	}

	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for mode, ok := range map[os.FileMode]bool{0o600: true, 0o660: true, 0o666: false, 0o640: true, 0o606: false} {
		os.Chmod(sock, mode)
		s = Section{}
		s.CheckSocket("socket", sock)
		if c := only(t, s); c.OK != ok || (!ok && !strings.HasPrefix(c.Fix, "chmod 600 "+sock)) {
			t.Errorf("a socket of mode %04o: %+v", mode, c)
		}
	}
	s = Section{}
	s.CheckSocket("socket", filepath.Join(dir, "none.sock"))
	if c := only(t, s); !c.OK || !c.Skipped {
		t.Errorf("no socket: %+v", c)
	}
}

func TestCheckDiskThresholds(t *testing.T) {
	var s Section
	s.CheckDisk("disk", t.TempDir())
	c := only(t, s)
	free, total, err := diskSpace(os.TempDir())
	if err != nil {
		t.Skip(err)
	}
	want := free >= MinFreeBytes && float64(free)*100/float64(total) >= MinFreePercent
	if c.OK != want || !strings.Contains(c.Detail, " free of ") {
		t.Errorf("%s free of %s: %+v", bytesText(free), bytesText(total), c)
	}
}

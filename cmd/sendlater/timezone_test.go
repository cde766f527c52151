package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the test's own expectation, whatever the host has

	"github.com/sendlater/sendlater/core"
)

// serveWithoutZoneinfo starts serve as on a host or container without a
// zone database: ZONEINFO points at an empty folder and TZ is unset; where
// the kernel lets an unprivileged user mount (unshare -rm), the host's
// zone folders and Go's own zoneinfo.zip are hidden under empty tmpfs too.
func serveWithoutZoneinfo(t *testing.T, dir string) *server {
	t.Helper()
	var env []string
	for _, kv := range cleanEnv() {
		if !strings.HasPrefix(kv, "TZ=") && !strings.HasPrefix(kv, "ZONEINFO=") {
			env = append(env, kv)
		}
	}
	env = append(env, "ZONEINFO="+t.TempDir())
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0")
	if exec.Command("unshare", "-rm", "true").Run() == nil {
		hide := "set -e"
		for _, d := range []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/etc/zoneinfo", goroot(t) + "/lib/time"} {
			hide += "; if [ -d " + d + " ]; then mount -t tmpfs none " + d + "; fi"
		}
		cmd = exec.Command("unshare", "-rm", "sh", "-c", hide+`; exec "$0" serve --addr 127.0.0.1:0`, binary)
	} else {
		t.Log("unshare -rm is not allowed here: the host's zone folders stay visible, only ZONEINFO is empty")
	}
	cmd.Dir, cmd.Env = dir, env
	return startServerCmd(t, cmd)
}

// apiFields calls the server and returns the status and the validation
// failure's fields.
func apiFields(t *testing.T, c *http.Client, method, url, bearer string, body any) (int, map[string]string) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Fields map[string]string `json:"fields"`
	}
	json.NewDecoder(resp.Body).Decode(&env)
	return resp.StatusCode, env.Fields
}

// The binary embeds the zone database: on a host without one, an author in
// Auckland still gets a delivery date six months on in Auckland's time (a
// different UTC hour once New Zealand's summer time has ended), and an
// unknown zone is refused.
func TestServeKeepsTheAuthorsZoneWithoutZoneinfo(t *testing.T) {
	s := serveWithoutZoneinfo(t, t.TempDir())
	c := &http.Client{Timeout: 10 * time.Second}

	code, fields := apiFields(t, c, "POST", s.url+"/api/auth/signup", "",
		map[string]string{"email": "nowhere@example.com", "password": "a passphrase long enough", "timezone": "Mars/Olympus_Mons"})
	if code != http.StatusUnprocessableEntity || fields["timezone"] != "Please choose a valid time zone" {
		t.Fatalf("sign-up in an unknown zone: %d %v, want 422 and the timezone field", code, fields)
	}

	var grant struct {
		IDToken string `json:"idToken"`
		User    struct {
			Timezone string `json:"timezone"`
		} `json:"user"`
	}
	if code := api(t, c, "POST", s.url+"/api/auth/signup", "",
		map[string]string{"email": "kiri@example.com", "password": "a passphrase long enough", "timezone": "Pacific/Auckland"}, &grant); code != http.StatusCreated {
		t.Fatalf("sign-up in Pacific/Auckland: %d\n%s", code, s.logs)
	}
	if grant.User.Timezone != "Pacific/Auckland" {
		t.Fatalf("the user's zone is %q, want Pacific/Auckland", grant.User.Timezone)
	}
	var m struct {
		SendDate  int64 `json:"sendDate"`
		CreatedAt int64 `json:"createdAt"`
	}
	if code := api(t, c, "POST", s.url+"/api/messages", grant.IDToken, map[string]string{
		"title": "Winter", "name": "Ann", "recipient": "ann@example.com", "message": "See you then.", "interval": "6M",
	}, &m); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	created := time.UnixMilli(m.CreatedAt)
	want := core.AddMonths(created, 6, auckland)
	if got := time.UnixMilli(m.SendDate); !got.Equal(want) {
		t.Fatalf("sendDate %s, want %s (six months on in Auckland; in UTC it would be %s)",
			got.In(auckland), want.In(auckland), core.AddMonths(created, 6, time.UTC).In(auckland))
	}

	code, fields = apiFields(t, c, "PATCH", s.url+"/api/me", grant.IDToken, map[string]string{"timezone": "Europe/Atlantis"})
	if code != http.StatusUnprocessableEntity || fields["timezone"] != "Please choose a valid time zone" {
		t.Fatalf("profile with an unknown zone: %d %v", code, fields)
	}
}

// goroot is the GOROOT of the go command that runs the tests (whose
// lib/time the binary under test could fall back to).
func goroot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

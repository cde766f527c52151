package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func postPageView(t *testing.T, base, path string) int {
	t.Helper()
	resp, err := http.Post(base+"/api/pageviews", "application/json", strings.NewReader(`{"path":"`+path+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func getPage(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The config's analytics and chat reach the pages and widen the CSP for
// their hosts only; page views are counted by default and `sendlater stats`
// shows them, through the server and from the store.
func TestThirdPartiesAndPageViewsFromTheConfig(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir,
		"SENDLATER_ANALYTICS_SCRIPT_URL=https://stats.example.org/script.js", "SENDLATER_ANALYTICS_WEBSITE_ID=site-1",
		"SENDLATER_CHAT_SCRIPT_URL=https://client.crisp.chat/l.js", "SENDLATER_CHAT_WEBSITE_ID=chat-1",
		"SENDLATER_CHAT_HOSTS=wss://client.relay.crisp.chat,https://image.crisp.chat/")

	// The settings in the page are web's tests (the binary under test may
	// carry no build of the web app); the policy is on every reply.
	resp, _ := getPage(t, srv.url+"/pricing")
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval' https://stats.example.org https://client.crisp.chat wss://client.relay.crisp.chat https://image.crisp.chat;") {
		t.Errorf("CSP: %s", csp)
	}

	for _, p := range []string{"/", "/pricing", "/pricing", "/auth/signin"} {
		if code := postPageView(t, srv.url, p); code != 200 {
			t.Fatalf("page view of %s: %d", p, code)
		}
	}
	if code := postPageView(t, srv.url, "/dashboard"); code != 422 {
		t.Fatalf("page view of the dashboard: %d, want 422", code)
	}
	today := time.Now().UTC().Format(time.DateOnly)

	r := mustRun(t, dir, "stats", "--json", "--verbose")
	var got []struct {
		Day, Path string
		Views     int
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, r.stdout)
	}
	if !strings.Contains(r.stderr, "admin socket") || len(got) != 3 || got[2].Path != "/pricing" || got[2].Views != 2 || got[0].Day != today {
		t.Fatalf("stats through the server: %+v\n%s", got, r.stderr)
	}
	srv.stop(t)

	r = mustRun(t, dir, "stats", "--since", "1d", "--verbose")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 5 || strings.Join(strings.Fields(lines[0]), " ") != "DAY PATH VIEWS" ||
		strings.Join(strings.Fields(lines[3]), " ") != today+" /pricing 2" || lines[4] != "4 views since "+today+" (UTC)" {
		t.Errorf("stats from the store:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "opened the store") {
		t.Errorf("stats did not open the store: %s", r.stderr)
	}
	if r := mustRun(t, dir, "stats", "--since", "2999-01-01", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("stats of the future: %s", r.stdout)
	}
	if r := run(t, dir, nil, "stats", "--since", "0d"); r.code == 0 || !strings.Contains(r.stderr, "--since") {
		t.Errorf("stats --since 0d: %+v", r)
	}
}

func TestPageViewsSwitchedOff(t *testing.T) {
	srv := startServer(t, t.TempDir(), "SENDLATER_PAGE_VIEWS_ENABLED=false")
	resp, body := getPage(t, srv.url+"/")
	if strings.Contains(body, "public-settings") || strings.Contains(resp.Header.Get("Content-Security-Policy"), "https://") {
		t.Fatalf("nothing configured, counter off:\n%s", body)
	}
	if code := postPageView(t, srv.url, "/"); code != 404 {
		t.Fatalf("page view with the counter off: %d, want 404", code)
	}
}

func TestInvalidThirdPartyConfigNamesTheKey(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"SENDLATER_ANALYTICS_SCRIPT_URL=http://stats.example.org/script.js", "SENDLATER_ANALYTICS_WEBSITE_ID=a"}, "analytics.script_url must be an https URL of a script"},
		{[]string{"SENDLATER_CHAT_SCRIPT_URL=https://client.crisp.chat/l.js"}, "chat.website_id must be the service's id of this site"},
		{[]string{"SENDLATER_CHAT_WEBSITE_ID=chat-1"}, "chat.website_id and chat.hosts need chat.script_url"},
		{[]string{"SENDLATER_ANALYTICS_SCRIPT_URL=https://s.example/x.js", "SENDLATER_ANALYTICS_WEBSITE_ID=a", "SENDLATER_ANALYTICS_HOSTS=https://api.example/collect"},
			"analytics.hosts[0] must be an https:// or wss:// origin without a path"},
		{[]string{"SENDLATER_ANALYTICS_SCRIPT_URL=https://s.example/x.js", "SENDLATER_ANALYTICS_WEBSITE_ID=a", "SENDLATER_ANALYTICS_HOSTS=https://*.example"},
			"analytics.hosts[0] must be an https:// or wss:// origin"},
		{[]string{"SENDLATER_PAGE_VIEWS_ENABLED=maybe"}, "page_views.enabled"},
	} {
		r := run(t, t.TempDir(), tt.env, "config")
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.env, r.code, r.stderr, tt.want)
		}
	}
}

package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

func pageViewServer(t *testing.T, env *testenv.Env, counter core.PageViewCounter) http.Handler {
	ui := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><html><head></head><body><div id=root></div></body></html>`)}}
	return (&web.Server{UI: ui, BaseURL: "https://sendlater.test", Clock: env.Clock, PageViews: counter}).Handler()
}

// beacon posts a page view from client and returns the reply's status and
// envelope.
func beacon(h http.Handler, client, body string) (int, map[string]any) {
	req := httptest.NewRequest("POST", "/api/pageviews", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = client + ":40000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var env map[string]any
	json.Unmarshal(rec.Body.Bytes(), &env)
	return rec.Code, env
}

func TestPageViewsCountPublicPagesPerDay(t *testing.T) {
	env := testenv.New(t, testenv.Config{})
	h := pageViewServer(t, env, env.PageViews)

	for _, path := range []string{"/", "/pricing", "/pricing/", "/auth/%73ignin", "/auth/nonsense", "/legal/privacy-policy"} {
		if code, reply := beacon(h, "198.51.100.7", `{"path":"`+path+`"}`); code != 200 || reply["status"] != "success" {
			t.Fatalf("view of %s: %d %v", path, code, reply)
		}
	}
	env.Clock.Add(24 * time.Hour)
	beacon(h, "198.51.100.8", `{"path":"/"}`)

	for _, c := range []struct{ body, why string }{
		{`{"path":"/dashboard"}`, "a signed-in page"},
		{`{"path":"/settings/general"}`, "a signed-in page"},
		{`{"path":"/postpone/abc"}`, "a postpone link"},
		{`{"path":"/no/such/page"}`, "no page"},
		{`{"path":"/purchase/gold"}`, "no page"},
		{`{"path":""}`, "empty"},
		{`{"path":"pricing"}`, "not a path"},
	} {
		code, reply := beacon(h, "198.51.100.7", c.body)
		fields, _ := reply["fields"].(map[string]any)
		if code != 422 || reply["code"] != "request/validation" || !strings.Contains(fields["path"].(string), "public page") {
			t.Errorf("%s (%s): %d %v, want 422 naming path", c.body, c.why, code, reply)
		}
	}
	if code, reply := beacon(h, "198.51.100.7", `{"path":"/","user":"u1"}`); code != 400 || reply["code"] != "request/invalid-json" {
		t.Errorf("an unknown field: %d %v", code, reply)
	}

	got, err := env.PageViews.PageViews(env.Ctx, testenv.DefaultStart)
	if err != nil {
		t.Fatal(err)
	}
	want := []core.PageViewCount{
		{Day: "2026-03-01", Path: "/", Views: 1},
		{Day: "2026-03-01", Path: "/auth/signin", Views: 1},
		{Day: "2026-03-01", Path: "/auth/signup", Views: 1},
		{Day: "2026-03-01", Path: "/legal/privacy-policy", Views: 1},
		{Day: "2026-03-01", Path: "/pricing", Views: 2},
		{Day: "2026-03-02", Path: "/", Views: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("counted %v\nwant %v", got, want)
	}
}

// One client cannot fill the counters: beyond its limit it is refused and
// nothing is counted; another client still counts.
func TestPageViewsAreLimitedPerClient(t *testing.T) {
	env := testenv.New(t, testenv.Config{})
	h := pageViewServer(t, env, env.PageViews)
	for i := range core.LimitPageViewsClient.Max {
		if code, reply := beacon(h, "203.0.113.9", `{"path":"/faq"}`); code != 200 {
			t.Fatalf("view %d: %d %v", i+1, code, reply)
		}
	}
	code, reply := beacon(h, "203.0.113.9", `{"path":"/faq"}`)
	if code != 429 || reply["code"] != "auth/too-many-requests" {
		t.Fatalf("view beyond the limit: %d %v", code, reply)
	}
	if code, _ := beacon(h, "203.0.113.10", `{"path":"/faq"}`); code != 200 {
		t.Fatalf("another client: %d", code)
	}
	got, _ := env.PageViews.PageViews(env.Ctx, testenv.DefaultStart)
	if len(got) != 1 || got[0].Views != int64(core.LimitPageViewsClient.Max)+1 {
		t.Fatalf("counted %v", got)
	}
}

// The SPA is told to send its views when the counter is on, and only then;
// the CSP stays the same either way (the beacon goes to the server itself).
func TestPageViewsSettingReachesTheSPA(t *testing.T) {
	env := testenv.New(t, testenv.Config{})
	on := serve(pageViewServer(t, env, env.PageViews), "/pricing")
	if !strings.Contains(on.Body.String(), `<script type="application/json" id="public-settings">{"pageViews":true}</script>`) {
		t.Fatalf("counter on, page:\n%s", on.Body)
	}
	if csp := on.Header().Get("Content-Security-Policy"); strings.Contains(csp, "https://") {
		t.Fatalf("the counter widened the CSP: %s", csp)
	}

	off := pageViewServer(t, env, nil)
	if body := serve(off, "/pricing").Body.String(); strings.Contains(body, "public-settings") {
		t.Fatalf("counter off, page:\n%s", body)
	}
	if code, reply := beacon(off, "198.51.100.7", `{"path":"/"}`); code != 404 || reply["code"] != "request/not-found" {
		t.Fatalf("beacon with the counter off: %d %v", code, reply)
	}
}

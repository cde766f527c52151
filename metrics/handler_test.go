package metrics_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/metrics"
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestHandlerAuth: with a token or a user and password configured, a
// scrape without them, or with wrong ones, is refused 401 and shows no
// metric; with them it is answered.
func TestHandlerAuth(t *testing.T) {
	cases := []struct {
		name string
		auth metrics.Auth
		set  func(r *http.Request)
		want int
	}{
		{"token, none sent", metrics.Auth{Token: "s3cret"}, func(*http.Request) {}, 401},
		{"token, wrong", metrics.Auth{Token: "s3cret"}, func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cre") }, 401},
		{"token, basic sent", metrics.Auth{Token: "s3cret"}, func(r *http.Request) { r.SetBasicAuth("", "s3cret") }, 401},
		{"token, right", metrics.Auth{Token: "s3cret"}, func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret") }, 200},
		{"basic, none sent", metrics.Auth{Username: "prom", Password: "pw"}, func(*http.Request) {}, 401},
		{"basic, wrong user", metrics.Auth{Username: "prom", Password: "pw"}, func(r *http.Request) { r.SetBasicAuth("pro", "pw") }, 401},
		{"basic, wrong password", metrics.Auth{Username: "prom", Password: "pw"}, func(r *http.Request) { r.SetBasicAuth("prom", "p") }, 401},
		{"basic, right", metrics.Auth{Username: "prom", Password: "pw"}, func(r *http.Request) { r.SetBasicAuth("prom", "pw") }, 200},
		{"open", metrics.Auth{}, func(*http.Request) {}, 200},
	}
	m := metrics.New("p")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "/metrics", nil)
			c.set(r)
			m.Handler(c.auth).ServeHTTP(rec, r)
			if rec.Code != c.want {
				t.Fatalf("status %d, want %d", rec.Code, c.want)
			}
			if c.want == 401 && (rec.Header().Get("WWW-Authenticate") == "" || len(rec.Body.String()) > 20) {
				t.Fatalf("a refusal says %q, %q", rec.Header().Get("WWW-Authenticate"), rec.Body.String())
			}
		})
	}
}

// TestProfiles: Go's profiles (metrics.pprof) answer only a scraper with
// the credentials, and never the process's command line.
func TestProfiles(t *testing.T) {
	h := metrics.Profiles(metrics.Auth{Token: "s3cret"})
	serve := func(path, token string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", path, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		h.ServeHTTP(rec, r)
		return rec
	}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/goroutine?debug=2", "/debug/pprof/profile?seconds=1"} {
		if rec := serve(path, ""); rec.Code != 401 || len(rec.Body.String()) > 20 {
			t.Errorf("%s without the token: %d %q", path, rec.Code, rec.Body.String())
		}
		if rec := serve(path, "wrong"); rec.Code != 401 {
			t.Errorf("%s with a wrong token: %d", path, rec.Code)
		}
	}
	if rec := serve("/debug/pprof/", "s3cret"); rec.Code != 200 || !strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("the index: %d %.200q", rec.Code, rec.Body.String())
	}
	if rec := serve("/debug/pprof/goroutine?debug=1", "s3cret"); rec.Code != 200 || !strings.Contains(rec.Body.String(), "TestProfiles") {
		t.Errorf("the goroutines: %d %.200q", rec.Code, rec.Body.String())
	}
	if rec := serve("/debug/pprof/cmdline", "s3cret"); rec.Code != 404 || strings.Contains(rec.Body.String(), "metrics.test") {
		t.Errorf("the command line: %d %q", rec.Code, rec.Body.String())
	}
	if rec := serve("/debug/pprof/nothing", "s3cret"); rec.Code != 404 {
		t.Errorf("an unknown profile: %d", rec.Code)
	}
}

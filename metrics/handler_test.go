package metrics_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
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

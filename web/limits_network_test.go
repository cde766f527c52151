package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// limitsServer is the API over e behind a trusted proxy (127.0.0.1), so
// that a request may come from any client (X-Forwarded-For); it works on
// either backend.
func limitsServer(e *testenv.Env) http.Handler {
	return (&web.Server{
		Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact, PageViews: e.PageViews,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	}).Handler()
}

// postFrom posts body to path on h from the client address ip, through the
// trusted proxy, and returns the reply's status and error code.
func postFrom(h http.Handler, ip, path string, body any) (int, string) {
	raw, _ := json.Marshal(body)
	req := httptest.NewRequest("POST", path, strings.NewReader(string(raw)))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:40000"
	req.Header.Set("X-Forwarded-For", ip)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var env struct {
		Code string `json:"code"`
	}
	json.Unmarshal(rec.Body.Bytes(), &env)
	return rec.Code, env.Code
}

// inNet is the i-th address of the /64 2001:db8:1:2::/64, each another one.
func inNet(i int) string { return fmt.Sprintf("2001:db8:1:2:%x:%x:%x:%x", i, i*7, i*13, i+1) }

// The limits count an IPv6 client by its /64: 60 addresses of one /64 are
// limited like one client (sign-ins, contact form, page views), another /64
// is another client, and an IPv4-mapped address is its IPv4 client. On the
// old code every address was a client of its own and all 60 sign-ins, 12
// submissions and 150 views passed.
func TestLimitsCountAnIPv6NetworkAsOneClient(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		h := limitsServer(e)
		other := "2001:db8:1:3::1" // the next /64

		// Failed sign-ins of one client on any account: 50, then it waits.
		for i := range 60 {
			body := map[string]string{"email": fmt.Sprintf("guess%d@example.com", i), "password": "wrong password"}
			status, code := postFrom(h, inNet(i), "/api/auth/signin", body)
			switch {
			case i < core.LimitSignInClient.Max && status == 401 && code == core.EWrongCredentials:
			case i >= core.LimitSignInClient.Max && status == 429 && code == core.ETooManyRequests:
			default:
				t.Fatalf("sign-in %d from %s: %d %s", i+1, inNet(i), status, code)
			}
		}
		body := map[string]string{"email": "guess@example.com", "password": "wrong password"}
		if status, code := postFrom(h, other, "/api/auth/signin", body); status != 401 {
			t.Fatalf("a sign-in from another /64: %d %s", status, code)
		}

		// Contact form: 5 submissions of one client, then it waits.
		contact := map[string]string{"email": "ann@example.com", "message": "Hi"}
		for i := range 12 {
			status, code := postFrom(h, inNet(100+i), "/api/contact", contact)
			if (i < core.LimitContactClient.Max && status != 200) || (i >= core.LimitContactClient.Max && (status != 429 || code != core.ETooManyRequests)) {
				t.Fatalf("submission %d: %d %s", i+1, status, code)
			}
		}
		if status, code := postFrom(h, other, "/api/contact", contact); status != 200 {
			t.Fatalf("a submission from another /64: %d %s", status, code)
		}
		// ::ffff:198.51.100.7 is 198.51.100.7.
		for i := range core.LimitContactClient.Max {
			ip := []string{"198.51.100.7", "::ffff:198.51.100.7"}[i%2]
			if status, code := postFrom(h, ip, "/api/contact", contact); status != 200 {
				t.Fatalf("submission %d from %s: %d %s", i+1, ip, status, code)
			}
		}
		if status, _ := postFrom(h, "::ffff:198.51.100.7", "/api/contact", contact); status != 429 {
			t.Fatalf("an IPv4-mapped address beyond its IPv4 client's limit: %d", status)
		}
		if status, _ := postFrom(h, "198.51.100.8", "/api/contact", contact); status != 200 {
			t.Fatalf("the next IPv4 address: %d", status)
		}

		// Page views: 120 of one client, then it waits.
		view := map[string]string{"path": "/pricing"}
		for i := range 150 {
			status, code := postFrom(h, inNet(200+i), "/api/pageviews", view)
			if (i < core.LimitPageViewsClient.Max && status != 200) || (i >= core.LimitPageViewsClient.Max && (status != 429 || code != core.ETooManyRequests)) {
				t.Fatalf("view %d: %d %s", i+1, status, code)
			}
		}
		if status, code := postFrom(h, other, "/api/pageviews", view); status != 200 {
			t.Fatalf("a view from another /64: %d %s", status, code)
		}
		views, err := e.PageViews.PageViews(e.Ctx, e.Clock.Now())
		if err != nil || len(views) != 1 || views[0].Views != int64(core.LimitPageViewsClient.Max)+1 {
			t.Fatalf("counted %+v, %v", views, err)
		}
	})
}

package billing_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/sendlater/sendlater/billing"
	"github.com/sendlater/sendlater/billing/stripemock"
)

// The test peer is stripe-mock behind a recording proxy. stripe-mock checks
// every request against Stripe's OpenAPI spec and answers with Stripe's
// fixtures, but keeps no state; the proxy records what was asked and can
// play the part of Stripe's state: the status and price its subscriptions
// have now, or an outage.

// fixturePrice is the price of stripe-mock's subscription fixture.
const fixturePrice = "price_1PgafmB7WZ01zgkW6dKueIc5"

const webhookSecret = "whsec_test_sendlater"

type request struct {
	Method, Path   string
	Form           url.Values
	IdempotencyKey string
}

type peer struct {
	*stripemock.Server
	Proxy *httptest.Server

	mu       sync.Mutex
	requests []request
	status   string // subscriptions' status now; "" leaves stripe-mock's
	price    string // their price now; "" leaves stripe-mock's
	down     bool   // answer 503 to everything
}

func startPeer(t *testing.T) *peer {
	t.Helper()
	p := &peer{Server: stripemock.Start(t)}
	target, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = p.rewrite
	p.Proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		if r.Method == http.MethodGet {
			form = r.URL.Query()
		}
		p.mu.Lock()
		p.requests = append(p.requests, request{r.Method, r.URL.Path, form, r.Header.Get("Idempotency-Key")})
		down := p.down
		p.mu.Unlock()
		if down {
			http.Error(w, `{"error":{"type":"api_error","message":"down for the test"}}`, http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Proxy.Close)
	return p
}

// client is the provider under test, talking to the proxy.
func (p *peer) client() *billing.Stripe { return newClient(p.Proxy.URL) }

func newClient(apiBase string) *billing.Stripe {
	return billing.New(billing.Config{SecretKey: "sk_test_sendlater", WebhookSecret: webhookSecret, APIBase: apiBase})
}

// set makes Stripe's subscriptions have status and price from now on.
func (p *peer) set(status, price string) {
	p.mu.Lock()
	p.status, p.price = status, price
	p.mu.Unlock()
}

func (p *peer) setDown(down bool) {
	p.mu.Lock()
	p.down = down
	p.mu.Unlock()
}

// sent returns the requests made to method and path so far.
func (p *peer) sent(method, path string) []request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []request
	for _, r := range p.requests {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// rewrite gives subscription lists the status and price set by the test.
func (p *peer) rewrite(resp *http.Response) error {
	p.mu.Lock()
	status, price := p.status, p.price
	p.mu.Unlock()
	if resp.Request.URL.Path != "/v1/subscriptions" || (status == "" && price == "") {
		return nil
	}
	var list map[string]any
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return err
	}
	for _, s := range list["data"].([]any) {
		sub := s.(map[string]any)
		if status != "" {
			sub["status"] = status
		}
		for _, it := range sub["items"].(map[string]any)["data"].([]any) {
			if price != "" {
				it.(map[string]any)["price"].(map[string]any)["id"] = price
			}
		}
	}
	if body, err = json.Marshal(list); err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

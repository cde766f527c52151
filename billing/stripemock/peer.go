package stripemock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// FixturePrice is the price of stripe-mock's subscription fixture.
const FixturePrice = "price_1PgafmB7WZ01zgkW6dKueIc5"

// Peer is Stripe for the tests: stripe-mock behind a recording proxy.
// stripe-mock checks every request against Stripe's OpenAPI spec and answers
// with Stripe's fixtures, but keeps no state; the proxy records what was
// asked and plays the part of Stripe's state: the status and price its
// subscriptions have now, or an outage. It also plays Stripe's hosted
// checkout: a checkout session's url is a page of the proxy whose Pay button
// makes the subscriptions active, sends checkout.session.completed to the
// webhook endpoint (Webhook) signed as Stripe signs, and sends the browser to
// the session's success URL.
type Peer struct {
	*Server
	// APIBase is the proxy: what the app under test takes as Stripe's API.
	APIBase string

	mu        sync.Mutex
	requests  []Request
	status    string // subscriptions' status now; "" leaves stripe-mock's
	price     string // their price now; "" leaves stripe-mock's
	down      bool   // answer 503 to everything
	checkouts []checkout
	hook      struct {
		url, secret string
		hold        bool
		held        [][]byte // events waiting for POST /webhooks/release
	}
}

// Request is a request the app made to Stripe.
type Request struct {
	Method, Path   string
	Form           url.Values
	IdempotencyKey string
}

// checkout is a checkout session created through the proxy.
type checkout struct {
	Form url.Values // what the app asked for
	ID   string
}

// StartPeer runs stripe-mock (see Start) behind the proxy until the test
// ends.
func StartPeer(tb testing.TB) *Peer {
	tb.Helper()
	p := &Peer{Server: Start(tb)}
	target, err := url.Parse(p.URL)
	if err != nil {
		tb.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = p.rewrite
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pay/{n}", p.servePayPage)
	mux.HandleFunc("POST /pay/{n}", p.pay)
	mux.HandleFunc("POST /webhooks/release", p.release)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		if r.Method == http.MethodGet {
			form = r.URL.Query()
		}
		p.mu.Lock()
		p.requests = append(p.requests, Request{r.Method, r.URL.Path, form, r.Header.Get("Idempotency-Key")})
		down := p.down
		p.mu.Unlock()
		if down {
			http.Error(w, `{"error":{"type":"api_error","message":"down for the test"}}`, http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	})
	proxy := httptest.NewServer(mux)
	tb.Cleanup(proxy.Close)
	p.APIBase = proxy.URL
	return p
}

// Set makes Stripe's subscriptions have status and price from now on.
func (p *Peer) Set(status, price string) {
	p.mu.Lock()
	p.status, p.price = status, price
	p.mu.Unlock()
}

// SetDown makes Stripe answer 503 to everything, or work again.
func (p *Peer) SetDown(down bool) {
	p.mu.Lock()
	p.down = down
	p.mu.Unlock()
}

// Webhook is where the hosted checkout sends its events, signed with
// secret: before it sends the browser back, or, with hold, when the test
// posts to /webhooks/release on the peer (as Stripe's webhooks often arrive
// after the customer).
func (p *Peer) Webhook(endpoint, secret string, hold bool) {
	p.mu.Lock()
	p.hook.url, p.hook.secret, p.hook.hold = endpoint, secret, hold
	p.mu.Unlock()
}

// Sent returns the requests made to method and path so far.
func (p *Peer) Sent(method, path string) []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Request
	for _, r := range p.requests {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// rewrite gives subscription lists the status and price set by the test,
// and checkout sessions the address of the proxy's hosted checkout.
func (p *Peer) rewrite(resp *http.Response) error {
	path := resp.Request.URL.Path
	if resp.StatusCode != http.StatusOK || (path != "/v1/subscriptions" && path != "/v1/checkout/sessions") {
		return nil
	}
	var obj map[string]any
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		return err
	}
	p.mu.Lock()
	if path == "/v1/subscriptions" {
		p.rewriteSubscriptions(obj)
	} else {
		p.checkouts = append(p.checkouts, checkout{Form: p.lastForm(resp.Request), ID: fmt.Sprint(obj["id"])})
		obj["url"] = fmt.Sprintf("%s/pay/%d", p.APIBase, len(p.checkouts)-1)
	}
	p.mu.Unlock()
	if body, err = json.Marshal(obj); err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// lastForm is the form of the last request to r's path (p.mu held).
func (p *Peer) lastForm(r *http.Request) url.Values {
	for i := len(p.requests) - 1; i >= 0; i-- {
		if p.requests[i].Path == r.URL.Path {
			return p.requests[i].Form
		}
	}
	return url.Values{}
}

func (p *Peer) rewriteSubscriptions(list map[string]any) {
	if p.status == "" && p.price == "" {
		return
	}
	for _, s := range list["data"].([]any) {
		sub := s.(map[string]any)
		if p.status != "" {
			sub["status"] = p.status
		}
		for _, it := range sub["items"].(map[string]any)["data"].([]any) {
			if p.price != "" {
				it.(map[string]any)["price"].(map[string]any)["id"] = p.price
			}
		}
	}
}

var payPage = template.Must(template.New("pay").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout (stripe-mock)</title><link rel="icon" href="data:,"></head>
<body><main><h1>Pay {{.Price}}</h1>
<form method="post"><button type="submit">Pay</button></form>
<p><a href="{{.Cancel}}">Back</a></p></main></body></html>
`))

func (p *Peer) checkout(r *http.Request) (checkout, bool) {
	n, err := strconv.Atoi(r.PathValue("n"))
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil || n < 0 || n >= len(p.checkouts) {
		return checkout{}, false
	}
	return p.checkouts[n], true
}

func (p *Peer) servePayPage(w http.ResponseWriter, r *http.Request) {
	c, ok := p.checkout(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	payPage.Execute(w, map[string]string{"Price": c.Form.Get("line_items[0][price]"), "Cancel": c.Form.Get("cancel_url")})
}

// pay completes a checkout as Stripe does: the subscription is active on
// the session's price, the webhook endpoint hears of it, and the browser
// goes to the success URL.
func (p *Peer) pay(w http.ResponseWriter, r *http.Request) {
	c, ok := p.checkout(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	p.Set("active", c.Form.Get("line_items[0][price]"))
	p.mu.Lock()
	hook := p.hook
	p.mu.Unlock()
	if hook.url != "" {
		payload := Event("evt_paid_"+c.ID+"_"+strconv.FormatInt(time.Now().UnixNano(), 36), "checkout.session.completed", map[string]any{
			"id": c.ID, "object": "checkout.session", "customer": c.Form.Get("customer"),
			"client_reference_id": c.Form.Get("client_reference_id"), "mode": "subscription",
		})
		if hook.hold {
			p.mu.Lock()
			p.hook.held = append(p.hook.held, payload)
			p.mu.Unlock()
		} else if err := deliver(hook.url, hook.secret, payload); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	http.Redirect(w, r, c.Form.Get("success_url"), http.StatusSeeOther)
}

// release delivers the held events, in order.
func (p *Peer) release(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	held, url, secret := p.hook.held, p.hook.url, p.hook.secret
	p.hook.held = nil
	p.mu.Unlock()
	for _, payload := range held {
		if err := deliver(url, secret, payload); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	fmt.Fprintf(w, "%d events delivered\n", len(held))
}

// deliver posts a webhook event, signed, to the endpoint.
func deliver(endpoint, secret string, payload []byte) error {
	req, _ := http.NewRequest("POST", endpoint, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", Sign(payload, secret, time.Now()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the webhook endpoint did not answer: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the webhook endpoint answered %s", resp.Status)
	}
	return nil
}

// Event returns a Stripe event's JSON with obj as its data object.
func Event(id, typ string, obj map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "type": typ, "api_version": stripe.APIVersion,
		"created": time.Now().Unix(), "livemode": false, "pending_webhooks": 1,
		"data": map[string]any{"object": obj},
	})
	return b
}

// Sign signs payload as Stripe does at t (the Stripe-Signature header).
func Sign(payload []byte, secret string, t time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: t}).Header
}

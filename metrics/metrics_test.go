package metrics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/web"
)

const (
	password   = "correct horse battery staple"
	scrapeWith = "a-scrape-token"
	rejected   = "nobody@rejects.example"
)

// session is a server over a test environment whose services and server
// count into one Metrics, scraped through its handler.
type session struct {
	t      *testing.T
	e      *testenv.Env
	srv    *web.Server
	scrape *httptest.Server
}

func newSession(t *testing.T, backend string) *session {
	t.Helper()
	m := metrics.New("test-process")
	e := testenv.New(t, testenv.Config{Backend: backend, Metrics: m})
	m.Queue(e.Store, e.Clock)
	e.Store.(interface {
		ObserveTransactions(func(string, time.Duration))
	}).ObserveTransactions(m.StoreOp)
	e.Delivery.Webhooks = webhookPeer{}
	billing := &core.BillingService{Users: e.Store, Billing: e.Store, Provider: fakeStripe{}, Clock: e.Clock, Metrics: m}
	srv := &web.Server{
		BaseURL: testenv.DefaultBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact, Postpone: e.Postpone,
		Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social, Payments: billing,
		StreamHeartbeat: time.Second, Metrics: m, Logger: discard(),
	}
	if err := srv.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	scrape := httptest.NewServer(m.Handler(metrics.Auth{Token: scrapeWith}))
	t.Cleanup(scrape.Close)
	return &session{t: t, e: e, srv: srv, scrape: scrape}
}

// post sends body as JSON to path and returns the status.
func (s *session) post(path string, body any, header ...string) int {
	s.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.srv.URL()+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// families scrapes the metrics and parses them with Prometheus's parser.
func (s *session) families() map[string]*dto.MetricFamily {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.scrape.URL, nil)
	req.Header.Set("Authorization", "Bearer "+scrapeWith)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("scrape: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return fams
}

// value is the value of family's series with labels (name, value pairs;
// others may be there too), the count of a histogram; -1 when none.
func value(fams map[string]*dto.MetricFamily, family string, labels ...string) float64 {
	f := fams[family]
	if f == nil {
		return -1
	}
series:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// TestScriptedSession: after sign-up, sign-ins, creates, an edit, a
// postponement, a live list, a delivery with a bounce, a webhook call and
// Stripe events, every family of the operator's metrics says so, on both
// stores.
func TestScriptedSession(t *testing.T) {
	for _, backend := range []string{testenv.Bolt, testenv.Postgres} {
		t.Run(backend, func(t *testing.T) { scriptedSession(t, backend) })
	}
}

func scriptedSession(t *testing.T, backend string) {
	s := newSession(t, backend)
	e, ctx := s.e, context.Background()
	e.SMTP.Reject(rejected, 550, "5.1.1 no such user")

	if got := s.post("/api/auth/signup", map[string]string{"email": "ada@example.com", "password": password}); got != 201 {
		t.Fatalf("sign-up: %d", got)
	}
	if got := s.post("/api/auth/signin", map[string]string{"email": "ada@example.com", "password": "wrong"}); got != 401 {
		t.Fatalf("wrong sign-in: %d", got)
	}
	api, err := web.SignIn(ctx, s.srv.URL(), "ada@example.com", password, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Social.SignIn(ctx, core.ProviderProfile{Provider: core.ProviderGitHub, Subject: "42",
		Email: "grace@example.com", EmailVerified: true}, core.Client{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Social.SignIn(ctx, core.ProviderProfile{Provider: core.ProviderTwitter, Subject: "43"}, core.Client{}); core.ErrorCode(err) != core.EEmailRequired {
		t.Fatalf("a social sign-in without an email: %v", err)
	}
	me, err := api.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store.UpdateUser(ctx, me.UID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanBusiness), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sent, err := api.Create(ctx, core.MessageInput{Title: "Hello", Name: "Bob", Recipient: "bob@example.com",
		Body: "Hi", WebhookURL: "https://hooks.example/sent"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Create(ctx, core.MessageInput{Title: "Lost", Name: "Nobody", Recipient: rejected, Body: "Hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Through(core.ChannelTUI).Create(ctx, core.MessageInput{Title: "From the terminal", Name: "Bob",
		Recipient: "bob@example.com", Body: "Hi", Interval: core.Interval6M}); err != nil {
		t.Fatal(err)
	}
	title := "Hello again"
	if _, err := api.Update(ctx, sent.ID, core.MessageUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Postpone(ctx, sent.ID); err != nil {
		t.Fatal(err)
	}
	stream, cancel := context.WithCancel(ctx)
	lists, err := api.Follow(stream)
	if err != nil {
		t.Fatal(err)
	}
	<-lists
	open := s.families()
	cancel()
	for range lists {
	}
	for _, ev := range []string{"evt_1", "evt_1", "bad"} {
		s.post("/api/stripe-webhook", map[string]string{"id": ev, "type": "invoice.paid"}, "Stripe-Signature", ev)
	}

	// Due, then delivered by a pass.
	e.Clock.Add(40 * 24 * time.Hour)
	due := s.families()
	if _, err := e.Delivery.Run(ctx); err != nil {
		t.Fatal(err)
	}
	after := s.families()

	checks := []struct {
		name   string
		got    float64
		want   float64
		atLeas bool
	}{
		{"sign-ups answered 201", value(after, "sendlater_http_requests_total", "route", "/api/auth/signup", "method", "POST", "code", "2xx"), 1, false},
		{"their latency observed", value(after, "sendlater_http_request_duration_seconds", "route", "/api/auth/signup", "code", "2xx"), 1, false},
		{"a message route by its pattern", value(after, "sendlater_http_requests_total", "route", "/api/messages/{id}", "method", "PATCH"), 1, false},
		{"the wrong sign-in as 4xx", value(after, "sendlater_http_requests_total", "route", "/api/auth/signin", "code", "4xx"), 1, false},
		{"no request in flight after", value(after, "sendlater_http_requests_in_flight"), 0, false},
		{"sign-ins ok", value(after, "sendlater_signins_total", "method", "password", "outcome", "ok"), 1, false},
		{"sign-ins wrong", value(after, "sendlater_signins_total", "method", "password", "outcome", "wrong_credentials"), 1, false},
		{"social sign-in ok", value(after, "sendlater_signins_total", "method", "social", "outcome", "ok"), 1, false},
		{"social sign-in asking for the email", value(after, "sendlater_signins_total", "method", "social", "outcome", "incomplete"), 1, false},
		{"created through a session", value(after, "sendlater_messages_changed_total", "action", "created", "channel", "web"), 2, false},
		{"created through the terminal app", value(after, "sendlater_messages_changed_total", "action", "created", "channel", "tui"), 1, false},
		{"edited", value(after, "sendlater_messages_changed_total", "action", "edited", "channel", "web"), 1, false},
		{"postponed", value(after, "sendlater_messages_changed_total", "action", "postponed", "channel", "web"), 1, false},
		{"a live list open", value(open, "sendlater_live_streams_open"), 1, false},
		{"none after it ended", value(after, "sendlater_live_streams_open"), 0, false},
		{"stripe applied", value(after, "sendlater_stripe_events_total", "type", "other", "outcome", "applied"), 1, false},
		{"stripe duplicate", value(after, "sendlater_stripe_events_total", "type", "other", "outcome", "duplicate"), 1, false},
		{"stripe invalid", value(after, "sendlater_stripe_events_total", "outcome", "invalid"), 1, false},
		{"two deliveries due", value(due, "sendlater_delivery_queue_due"), 2, false},
		{"the oldest due for days", value(due, "sendlater_delivery_queue_oldest_seconds"), 24 * 3600, true},
		{"none due after the pass", value(after, "sendlater_delivery_queue_due"), 0, false},
		{"queue age back to 0", value(after, "sendlater_delivery_queue_oldest_seconds"), 0, false},
		{"the store up", value(after, "sendlater_store_up"), 1, false},
		{"store writes timed", value(after, "sendlater_store_operation_duration_seconds", "operation", "write"), 5, true},
		{"one delivery sent", value(after, "sendlater_sends_total", "kind", "delivery", "outcome", "sent"), 1, false},
		{"one bounced", value(after, "sendlater_sends_total", "kind", "delivery", "outcome", "bounced"), 1, false},
		{"its lateness observed", value(after, "sendlater_delivery_lateness_seconds"), 1, false},
		{"the webhook called", value(after, "sendlater_webhook_calls_total", "outcome", "sent"), 1, false},
		{"a pass", value(after, "sendlater_scheduler_passes_total", "process", "test-process", "outcome", "ok"), 1, false},
		{"its duration", value(after, "sendlater_scheduler_pass_duration_seconds", "process", "test-process"), 1, false},
		{"its time", value(after, "sendlater_scheduler_last_success_timestamp_seconds", "process", "test-process"),
			float64(e.Clock.Now().Unix()), true},
		{"Go runtime", value(after, "go_goroutines"), 1, true},
		{"process", value(after, "process_resident_memory_bytes"), 1, true},
	}
	for _, c := range checks {
		if (c.atLeas && c.got < c.want) || (!c.atLeas && c.got != c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	noPersonalLabels(t, after, me.UID, sent.ID)
}

// noPersonalLabels fails on a label value that names a user or a message,
// holds an address, or is a raw path rather than a route pattern.
func noPersonalLabels(t *testing.T, fams map[string]*dto.MetricFamily, ids ...string) {
	t.Helper()
	for name, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				v := l.GetValue()
				bad := strings.Contains(v, "@") || strings.Contains(v, "example")
				for _, id := range ids {
					bad = bad || strings.Contains(v, id)
				}
				if l.GetName() == "route" && v != "none" && !knownRoute(v) {
					bad = true
				}
				if bad {
					t.Errorf("%s carries %s=%q", name, l.GetName(), v)
				}
			}
		}
	}
}

// knownRoute: a pattern the server registers, as its mux names them.
func knownRoute(v string) bool {
	for _, r := range []string{"/api/auth/signup", "/api/auth/signin", "/api/me", "/api/messages", "/api/messages/{id}",
		"/api/messages/{id}/postpone", "/api/messages/stream", "/api/stripe-webhook"} {
		if v == r {
			return true
		}
	}
	return false
}

// webhookPeer answers every webhook call 2xx.
type webhookPeer struct{}

func (webhookPeer) Post(context.Context, string, []byte, map[string]string) error { return nil }

// fakeStripe reads a webhook's event from its JSON; the signature "bad" is
// refused.
type fakeStripe struct{ core.PaymentProvider }

func (fakeStripe) ParseWebhook(payload []byte, signature string) (*core.BillingEvent, error) {
	if signature == "bad" {
		return nil, core.Errorf(core.EInvalid, "bad signature")
	}
	var ev struct{ ID, Type string }
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	return &core.BillingEvent{ID: ev.ID, Type: ev.Type}, nil
}

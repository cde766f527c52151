package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/tracing"
	"github.com/sendlater/sendlater/web"
)

const password = "correct horse battery staple"

// traced is a server over a test environment whose every span goes to an
// in-memory exporter.
type traced struct {
	t     *testing.T
	e     *testenv.Env
	srv   *web.Server
	spans *tracetest.InMemoryExporter
	token string // a personal access token of ada@example.com
	uid   string
}

type options struct {
	backend  string
	ratio    float64
	proxies  []netip.Prefix
	webhooks core.WebhookSender
}

func newTraced(t *testing.T, o options) *traced {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(tracing.Sampler(o.ratio)))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	tr := tracing.FromProvider(tp)
	e := testenv.New(t, testenv.Config{Backend: o.backend, Tracer: tr, Webhooks: o.webhooks})
	srv := &web.Server{
		BaseURL: testenv.DefaultBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact, Postpone: e.Postpone,
		Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social,
		Tracer: tr, TrustedProxies: o.proxies, Logger: slog.New(slog.DiscardHandler),
	}
	if err := srv.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	s := &traced{t: t, e: e, srv: srv, spans: exp}
	ctx := context.Background()
	if _, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: "ada@example.com", Password: password}, core.Client{}); err != nil {
		t.Fatal(err)
	}
	api, err := web.SignIn(ctx, srv.URL(), "ada@example.com", password, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	me, err := api.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.uid = me.UID
	if _, err := e.Store.UpdateUser(ctx, me.UID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanBusiness), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, s.token, err = api.CreateAccessToken(ctx, "traces", []string{core.ScopeMessagesRead, core.ScopeMessagesWrite})
	if err != nil {
		t.Fatal(err)
	}
	exp.Reset()
	return s
}

// request sends a request with the access token and header pairs; it
// returns the status and the X-Request-Id.
func (s *traced) request(method, path string, body any, header ...string) (int, string) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.srv.URL()+path, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Request-Id")
}

// tree is the exported spans by name; more than one of a name: the list.
type tree map[string][]tracetest.SpanStub

func (s *traced) tree() tree {
	tr := tree{}
	for _, sp := range s.spans.GetSpans() {
		tr[sp.Name] = append(tr[sp.Name], sp)
	}
	return tr
}

// one is the only span named name.
func (tr tree) one(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	if len(tr[name]) != 1 {
		t.Fatalf("%d spans named %q; the spans: %s", len(tr[name]), name, tr)
	}
	return tr[name][0]
}

func (tr tree) String() string {
	var b strings.Builder
	for name, ss := range tr {
		for _, sp := range ss {
			fmt.Fprintf(&b, "\n  %s (%s <- %s)", name, sp.SpanContext.SpanID(), sp.Parent.SpanID())
		}
	}
	return b.String()
}

// names are the spans' names, sorted, one a span.
func (tr tree) names() string {
	var names []string
	for name, ss := range tr {
		for range ss {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// under is the only span named name whose parent is parent.
func (tr tree) under(t *testing.T, name string, parent tracetest.SpanStub) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, sp := range tr[name] {
		if sp.Parent.SpanID() == parent.SpanContext.SpanID() {
			found = append(found, sp)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q under %s; the spans: %s", len(found), name, parent.Name, tr)
	}
	return found[0]
}

// childOf fails unless child's parent is parent, in the same trace.
func childOf(t *testing.T, child, parent tracetest.SpanStub) {
	t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.SpanContext.TraceID() != parent.SpanContext.TraceID() {
		t.Errorf("%s is not a child of %s", child.Name, parent.Name)
	}
}

// attrs fails unless sp carries each key = value pair.
func attrs(t *testing.T, sp tracetest.SpanStub, want ...any) {
	t.Helper()
	have := map[attribute.Key]attribute.Value{}
	for _, kv := range sp.Attributes {
		have[kv.Key] = kv.Value
	}
	for i := 0; i+1 < len(want); i += 2 {
		k := attribute.Key(want[i].(string))
		v, ok := have[k]
		if !ok {
			t.Errorf("%s has no %s", sp.Name, k)
			continue
		}
		if got, w := v.String(), fmt.Sprint(want[i+1]); got != w {
			t.Errorf("%s: %s = %s, want %s", sp.Name, k, got, w)
		}
	}
}

// nothingPersonal fails on an attribute value that holds an address, an
// id of the user, or words of a message.
func (s *traced) nothingPersonal(words ...string) {
	s.t.Helper()
	for _, sp := range s.spans.GetSpans() {
		for _, kv := range sp.Attributes {
			v := kv.Value.String()
			bad := strings.Contains(v, "@") || strings.Contains(v, s.uid)
			for _, w := range words {
				bad = bad || strings.Contains(v, w)
			}
			if bad {
				s.t.Errorf("%s carries %s=%q", sp.Name, kv.Key, v)
			}
		}
	}
}

// access is a store span's store.access.
func access(sp tracetest.SpanStub) string {
	for _, kv := range sp.Attributes {
		if kv.Key == "store.access" {
			return kv.Value.AsString()
		}
	}
	return ""
}

var backends = []string{testenv.Bolt, testenv.Postgres}

func systemOf(backend string) string {
	if backend == testenv.Postgres {
		return "postgresql"
	}
	return "bbolt"
}

// TestCreateSpans: one create through the API is a server span named
// after its route, with the request's id and status; under it the
// service's span, and under that the store's transaction, on both stores.
func TestCreateSpans(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			s := newTraced(t, options{backend: backend, ratio: 1})
			status, id := s.request("POST", "/api/messages", map[string]any{"title": "Secret title", "name": "Bob",
				"recipient": "bob@example.com", "message": "Secret body"})
			if status != http.StatusCreated {
				t.Fatalf("create: %d", status)
			}
			tr := s.tree()
			req := tr.one(t, "POST /api/messages")
			if req.Parent.IsValid() || req.SpanKind != trace.SpanKindServer {
				t.Errorf("the request's span: parent %v, kind %v; want a root server span", req.Parent.SpanID(), req.SpanKind)
			}
			attrs(t, req, "http.route", "/api/messages", "http.request.method", "POST",
				"http.response.status_code", 201, "request_id", id)
			svc := tr.one(t, core.SpanCreateMessage)
			childOf(t, svc, req)
			attrs(t, svc, core.AttrChannel, core.ChannelAPIToken, core.AttrRecipients, 1)
			st := tr.one(t, "store.CreateMessage")
			childOf(t, st, svc)
			attrs(t, st, "db.system.name", systemOf(backend), "store.access", "write")
			if st.SpanKind != trace.SpanKindClient {
				t.Errorf("store span kind %v", st.SpanKind)
			}
			// The token's lookups (authentication) are the request's, not
			// spans of their own: the tree is these four spans.
			if names := tr.names(); names != "POST /api/messages, core.CreateMessage, store.CreateMessage, store.FindUserByID" {
				t.Errorf("spans of a create: %s", names)
			}
			s.nothingPersonal("Secret", "Bob")
		})
	}
}

// TestListSpans: one list through the API is the request's span and the
// store's read under it; authenticating its token makes none, on both
// stores.
func TestListSpans(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			s := newTraced(t, options{backend: backend, ratio: 1})
			status, id := s.request("GET", "/api/messages", nil)
			if status != http.StatusOK {
				t.Fatalf("list: %d", status)
			}
			tr := s.tree()
			req := tr.one(t, "GET /api/messages")
			attrs(t, req, "http.route", "/api/messages", "http.request.method", "GET",
				"http.response.status_code", 200, "request_id", id)
			st := tr.one(t, "store.ListMessages")
			childOf(t, st, req)
			attrs(t, st, "db.system.name", systemOf(backend))
			if a := access(st); a != "read" && a != "statement" {
				t.Errorf("store.ListMessages: store.access %q", a)
			}
			if names := tr.names(); names != "GET /api/messages, store.ListMessages" {
				t.Errorf("spans of a list: %s", names)
			}
		})
	}
}

// TestDeliverySpans: one delivery pass is a trace of its own; under it the
// message's span, under that the store's reads and the email handed to the
// test SMTP server, on both stores.
func TestDeliverySpans(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			s := newTraced(t, options{backend: backend, ratio: 1})
			if status, _ := s.request("POST", "/api/messages", map[string]any{"title": "Secret title", "name": "Bob",
				"recipient": "bob@example.com", "message": "Secret body"}); status != http.StatusCreated {
				t.Fatalf("create: %d", status)
			}
			s.e.Clock.Add(40 * 24 * time.Hour)
			s.spans.Reset()
			res, err := s.e.Delivery.Run(context.Background())
			if err != nil || res.Delivered != 1 {
				t.Fatalf("pass: %+v, %v", res, err)
			}
			s.e.Mailbox.Next(t, "bob@example.com")
			tr := s.tree()
			pass := tr.one(t, core.SpanDeliveryPass)
			if pass.Parent.IsValid() {
				t.Errorf("the pass has a parent")
			}
			attrs(t, pass, "delivery.delivered", 1, "delivery.failed", 0)
			msg := tr.one(t, core.SpanDeliver)
			childOf(t, msg, pass)
			smtp := tr.under(t, core.SpanSMTPSend, msg)
			childOf(t, smtp, msg)
			attrs(t, smtp, core.AttrRecipients, 1, core.AttrOutcome, core.OutcomeSent)
			if smtp.SpanKind != trace.SpanKindClient {
				t.Errorf("smtp span kind %v", smtp.SpanKind)
			}
			read := tr.one(t, "store.ReadForSend")
			childOf(t, read, msg)
			attrs(t, read, "db.system.name", systemOf(backend))
			if a := access(read); a != "read" && a != "statement" {
				t.Errorf("store.ReadForSend: store.access %q", a)
			}
			claim := tr["store.ClaimDeliveries"]
			if len(claim) == 0 {
				t.Fatalf("no store.ClaimDeliveries: %s", tr)
			}
			for _, c := range claim {
				childOf(t, c, pass)
			}
			s.nothingPersonal("Secret", "Bob")
		})
	}
}

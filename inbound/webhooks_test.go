package inbound_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/inbound"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/web"
)

const (
	topicARN      = "arn:aws:sns:eu-west-1:123456789012:sendlater-bounces"
	hookUser      = "postmark"
	hookPassword  = "a-webhook-password-of-32-chars!!"
	certPath      = "/SimpleNotificationService-0000000000000000000000.pem"
	subscribePath = "/?Action=ConfirmSubscription&TopicArn=" + topicARN + "&Token=2336412f37f"
)

// hooks is a server with the providers' webhooks over an environment, and
// SNS's side: a test CA, the signing certificate it issued, served over
// TLS from the only URL prefix trusted besides Amazon's.
type hooks struct {
	e         *testenv.Env
	url       string // the server's
	key       *rsa.PrivateKey
	certURL   string
	sns       *httptest.Server
	confirmed atomic.Int32
	fetched   atomic.Int32
	metrics   *metrics.Metrics
}

func newHooks(t *testing.T, e *testenv.Env) *hooks {
	t.Helper()
	h := &hooks{e: e, metrics: metrics.New("test")}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := e.Clock.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Test SNS CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	if h.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "sns.amazonaws.com"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &h.key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER})
	h.sns = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == certPath:
			h.fetched.Add(1)
			w.Write(pemCert)
		case r.URL.Query().Get("Action") == "ConfirmSubscription":
			h.confirmed.Add(1)
			io.WriteString(w, "<ConfirmSubscriptionResponse/>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.sns.Close)
	h.certURL = h.sns.URL + certPath

	wh := &inbound.Webhooks{
		Addresses: e.Graph.Bounces, Processor: e.Graph.BounceReports, Limits: e.Limits, Clock: e.Clock,
		SES:      inbound.SESConfig{TopicARNs: []string{topicARN}, Client: h.sns.Client(), TestURLPrefix: h.sns.URL + "/"},
		Postmark: inbound.PostmarkConfig{User: hookUser, Password: hookPassword},
	}
	srv := &web.Server{BaseURL: testenv.DefaultBaseURL, Clock: e.Clock, Identities: e.Auth, Messages: e.Messages,
		BounceWebhooks: wh, Logger: discard(), Metrics: h.metrics}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve(ln)
	t.Cleanup(func() { srv.Close(e.Ctx) })
	h.url = srv.URL()
	return h
}

// snsMessage is an SNS delivery, signed with version (1: SHA1withRSA, 2:
// SHA256withRSA) over the fields SNS signs.
func (h *hooks) snsMessage(t testing.TB, typ, message, version string, edit func(m map[string]string)) []byte {
	t.Helper()
	m := map[string]string{
		"Type": typ, "MessageId": core.NewID(), "TopicArn": topicARN, "Message": message,
		"Timestamp":        h.e.Clock.Now().Add(-2 * time.Second).UTC().Format("2006-01-02T15:04:05.000Z"),
		"SignatureVersion": version, "SigningCertURL": h.certURL,
	}
	if typ == "Notification" {
		m["UnsubscribeURL"] = "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=" + topicARN + ":c9a4"
	} else {
		m["Token"] = "2336412f37f"
		m["SubscribeURL"] = h.sns.URL + subscribePath
	}
	if edit != nil {
		edit(m)
	}
	keys := []string{"Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"}
	if typ != "Notification" {
		keys = []string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"}
	}
	var s strings.Builder
	for _, k := range keys {
		if v, ok := m[k]; ok {
			s.WriteString(k + "\n" + v + "\n")
		}
	}
	var sig []byte
	var err error
	if version == "1" {
		d := sha1.Sum([]byte(s.String()))
		sig, err = rsa.SignPKCS1v15(rand.Reader, h.key, crypto.SHA1, d[:])
	} else {
		d := sha256.Sum256([]byte(s.String()))
		sig, err = rsa.SignPKCS1v15(rand.Reader, h.key, crypto.SHA256, d[:])
	}
	if err != nil {
		t.Fatal(err)
	}
	m["Signature"] = base64.StdEncoding.EncodeToString(sig)
	if after, ok := m["SignatureAfter"]; ok { // a change after signing
		m["Message"] = after
		delete(m, "SignatureAfter")
	}
	if after, ok := m["SubjectAfter"]; ok {
		m["Subject"] = after
		delete(m, "SubjectAfter")
	}
	b, _ := json.Marshal(m)
	return b
}

// post sends body to the provider's webhook as the provider does and
// returns the status and the reply.
func (h *hooks) post(t testing.TB, provider string, body []byte, user, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.url+"/api/webhooks/"+provider, bytes.NewReader(body))
	if provider == "ses" {
		req.Header.Set("Content-Type", "text/plain; charset=UTF-8")
		var m struct{ Type string }
		json.Unmarshal(body, &m)
		req.Header.Set("X-Amz-Sns-Message-Type", m.Type)
	} else {
		req.Header.Set("Content-Type", "application/json")
		if user != "" || password != "" {
			req.SetBasicAuth(user, password)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// event is the fixture file filled in for a recipient and its email's
// return path, at the clock's time.
func (h *hooks) event(t testing.TB, file, recipient, returnPath string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer("%RECIPIENT%", recipient, "%RETURN_PATH%", returnPath, "%TOKEN%", core.BounceToken(returnPath),
		"%TIMESTAMP%", h.e.Clock.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.0000000Z")).Replace(string(b))
}

// noticed makes an author and a message to recipient, sends the "tell the
// recipient now" notice, and returns the message and the notice's return
// path (its envelope sender).
func noticed(t *testing.T, e *testenv.Env, author, recipient string) (*core.User, *core.Message, string) {
	t.Helper()
	u := e.MustUser(t, author, "", core.PlanPro)
	e.MustVerify(t, u.ID)
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Letter to " + recipient, Body: "Dear you,\nhello",
		Name: "R", Recipient: recipient, Interval: core.Interval1M})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Messages.NotifyRecipient(e.As(u.ID), m.ID, recipient); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Delivery.Run(e.Ctx); err != nil {
		t.Fatal(err)
	}
	p, notice := e.Next(t, recipient)
	// The Postmark metadata carries the return path's token.
	if tok := p.Header.Get(inbound.PostmarkMetadataHeader); tok == "" || tok != core.BounceToken(notice.From) {
		t.Fatalf("%s: %q, return path %q", inbound.PostmarkMetadataHeader, tok, notice.From)
	}
	return u, m, notice.From
}

// state is what a user would check of a message's recipient: its mark,
// its soft bounces, the suppression list, the timeline.
type state struct {
	bouncing    bool
	reason      string
	soft        int
	suppressed  bool
	events      int
	lastEvent   core.EventKind
	lastAddress string
}

func stateOf(t *testing.T, e *testenv.Env, m *core.Message, recipient string) state {
	t.Helper()
	got, err := e.Store.FindMessageByID(e.Ctx, m.ID)
	if err == nil {
		err = core.JoinBounceMarks(e.Ctx, e.Store, got)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := got.RecipientList()[0]
	events, err := e.Store.ListMessageEvents(e.Ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	suppressed, err := e.Store.AddressRefused(e.Ctx, recipient)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	return state{bouncing: r.Bouncing(), reason: r.Bounce.Reason, soft: r.SoftBounces, suppressed: suppressed,
		events: len(events), lastEvent: last.Kind, lastAddress: last.Recipient}
}

// Each provider's event, in the shape the provider sends it, posted over
// HTTP to its webhook, ends in the right recipient's mark, the author's
// email and the timeline event; a complaint in the suppression list; a
// soft bounce counted; an event about nothing in nothing.
func TestProviderWebhooks(t *testing.T) {
	testenv.Backends(t, testenv.Config{BounceDomain: bounceDomain, TokenHeader: inbound.PostmarkMetadataHeader}, providerWebhooks)
}

func providerWebhooks(t *testing.T, e *testenv.Env) {
	h := newHooks(t, e)
	for i, c := range []struct {
		provider, file, version, recipient string
		want                               core.BounceOutcome
		outcome, reason                    string
	}{
		{"ses", "ses-bounce-permanent.json", "1", "bob@example.org", core.BounceMarked, "processed", "User unknown in virtual mailbox table"},
		{"ses", "ses-bounce-permanent.json", "2", "eve@example.org", core.BounceMarked, "processed", "550 5.1.1"},
		{"ses", "ses-bounce-transient.json", "2", "carol@example.net", core.BounceCounted, "processed", ""},
		{"ses", "ses-complaint.json", "1", "ivy@yahoo.com", core.BounceSuppressed, "processed", ""},
		{"ses", "ses-delivery.json", "2", "henry@example.org", core.BounceIgnored, "skipped", ""},
		{"postmark", "postmark-hard.json", "", "frank@gmail.com", core.BounceMarked, "processed", "The email account that you tried to reach does not exist"},
		{"postmark", "postmark-soft.json", "", "dan@example.com", core.BounceCounted, "processed", ""},
		{"postmark", "postmark-spam.json", "", "jack@outlook.com", core.BounceSuppressed, "processed", ""},
		{"postmark", "postmark-autoresponder.json", "", "kim@example.org", core.BounceIgnored, "skipped", ""},
	} {
		t.Run(c.file+c.version, func(t *testing.T) {
			u, m, returnPath := noticed(t, e, fmt.Sprintf("author%d@example.com", i), c.recipient)
			before := stateOf(t, e, m, c.recipient)
			event := h.event(t, c.file, c.recipient, returnPath)
			var status int
			var reply string
			if c.provider == "ses" {
				// Every other one with a Subject, which the signature then covers.
				var subject func(m map[string]string)
				if i%2 == 1 {
					subject = func(m map[string]string) { m["Subject"] = "Amazon SES Email Event Notification" }
				}
				status, reply = h.post(t, "ses", h.snsMessage(t, "Notification", event, c.version, subject), "", "")
			} else {
				status, reply = h.post(t, "postmark", []byte(event), hookUser, hookPassword)
			}
			if status != http.StatusOK || !strings.Contains(reply, `"outcome":"`+c.outcome+`"`) {
				t.Fatalf("%d %s", status, reply)
			}
			got := stateOf(t, e, m, c.recipient)
			if _, err := e.Delivery.Run(e.Ctx); err != nil { // sends the author's email, if any
				t.Fatal(err)
			}
			switch c.want {
			case core.BounceMarked:
				if !got.bouncing || !strings.Contains(got.reason, c.reason) || got.lastEvent != core.EventBounced || got.lastAddress != c.recipient {
					t.Fatalf("%+v", got)
				}
				p, _ := e.Next(t, u.Email)
				if !strings.Contains(p.Header.Get("Subject"), c.recipient+"> returned your notice") || !strings.Contains(p.Text, c.reason) {
					t.Fatalf("author's email %q:\n%s", p.Header.Get("Subject"), p.Text)
				}
			case core.BounceCounted:
				if got.bouncing || got.soft != 1 || got.events != before.events {
					t.Fatalf("%+v", got)
				}
			case core.BounceSuppressed:
				if !got.suppressed || got.lastEvent != core.EventComplained || got.bouncing {
					t.Fatalf("%+v", got)
				}
			default:
				if got != before {
					t.Fatalf("%+v, before %+v", got, before)
				}
			}
			e.NoMoreEmail(t)
		})
	}
	if n := h.fetched.Load(); n != 1 {
		t.Fatalf("the signing certificate was fetched %d times, not once (cached)", n)
	}
}

// counted reads sendlater_bounce_webhook_calls_total as provider/outcome:
// value.
func (h *hooks) counted(t *testing.T) map[string]float64 {
	t.Helper()
	fams, err := h.metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "sendlater_bounce_webhook_calls_total" {
			continue
		}
		for _, m := range f.Metric {
			l := map[string]string{}
			for _, p := range m.Label {
				l[p.GetName()] = p.GetValue()
			}
			out[l["provider"]+"/"+l["outcome"]] = m.Counter.GetValue()
		}
	}
	return out
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

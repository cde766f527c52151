package inbound_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/inbound"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// A call that is not what it claims to be changes nothing: a bad
// signature, an unknown topic, a certificate from elsewhere, an old
// message, a replay, wrong credentials; too many refused calls wait. A
// subscription is confirmed at SNS's URL only.
func TestProviderWebhookRefusals(t *testing.T) {
	testenv.Backends(t, testenv.Config{BounceDomain: bounceDomain, TokenHeader: inbound.PostmarkMetadataHeader}, providerWebhookRefusals)
}

func providerWebhookRefusals(t *testing.T, e *testenv.Env) {
	h := newHooks(t, e)
	_, m, returnPath := noticed(t, e, "author@example.com", "carol@example.net")
	before := stateOf(t, e, m, "carol@example.net")
	unchanged := func(what string) {
		t.Helper()
		if got := stateOf(t, e, m, "carol@example.net"); got != before {
			t.Fatalf("%s changed %+v into %+v", what, before, got)
		}
		e.NoMoreEmail(t)
	}
	hard := h.event(t, "ses-bounce-permanent.json", "carol@example.net", returnPath)
	for _, c := range []struct {
		name    string
		edit    func(m map[string]string)
		version string
	}{
		{"a message changed after signing", func(m map[string]string) {
			m["SignatureAfter"] = strings.Replace(m["Message"], "Permanent", "Permanent ", 1)
		}, "2"},
		{"a signature of version 1 checked as 2", func(m map[string]string) { m["SignatureVersion"] = "1" }, "2"},
		{"an unknown topic", func(m map[string]string) { m["TopicArn"] = "arn:aws:sns:eu-west-1:999999999999:other" }, "1"},
		{"a certificate from elsewhere", func(m map[string]string) {
			m["SigningCertURL"] = "https://sns.eu-west-1.amazonaws.com.evil.example/x.pem"
		}, "1"},
		{"a certificate over http", func(m map[string]string) { m["SigningCertURL"] = "http://sns.eu-west-1.amazonaws.com/x.pem" }, "1"},
		{"an hour and more old", func(m map[string]string) {
			m["Timestamp"] = h.e.Clock.Now().Add(-61 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
		}, "2"},
		{"from the future", func(m map[string]string) {
			m["Timestamp"] = h.e.Clock.Now().Add(20 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
		}, "1"},
		{"a Subject added after signing", func(m map[string]string) { m["SubjectAfter"] = "Hello" }, "2"},
	} {
		var body []byte
		if c.name == "a signature of version 1 checked as 2" {
			// Signed as version 2, then claimed to be version 1.
			var mm map[string]string
			json.Unmarshal(h.snsMessage(t, "Notification", hard, "2", nil), &mm)
			mm["SignatureVersion"] = "1"
			body, _ = json.Marshal(mm)
		} else {
			body = h.snsMessage(t, "Notification", hard, c.version, c.edit)
		}
		if status, reply := h.post(t, "ses", body, "", ""); status != http.StatusForbidden || !strings.Contains(reply, core.EWebhookRefused) {
			t.Fatalf("%s: %d %s", c.name, status, reply)
		}
		unchanged(c.name)
	}

	// A replay of a signed message (the same MessageId) changes nothing:
	// the transient bounce is counted once.
	soft := h.snsMessage(t, "Notification", h.event(t, "ses-bounce-transient.json", "carol@example.net", returnPath), "1", nil)
	if status, reply := h.post(t, "ses", soft, "", ""); status != http.StatusOK || !strings.Contains(reply, `"processed"`) {
		t.Fatalf("%d %s", status, reply)
	}
	if got := stateOf(t, e, m, "carol@example.net"); got.soft != 1 {
		t.Fatalf("%+v", got)
	}
	before.soft = 1
	if status, reply := h.post(t, "ses", soft, "", ""); status != http.StatusOK || !strings.Contains(reply, `"duplicate"`) {
		t.Fatalf("a replay: %d %s", status, reply)
	}
	unchanged("a replay")

	// Postmark: no credentials, a wrong user, a wrong password.
	pm := []byte(h.event(t, "postmark-soft.json", "carol@example.net", returnPath))
	for _, cred := range [][2]string{{"", ""}, {"someone", hookPassword}, {hookUser, hookPassword + "x"}, {hookUser, ""}} {
		if status, reply := h.post(t, "postmark", pm, cred[0], cred[1]); status != http.StatusUnauthorized || !strings.Contains(reply, core.EWrongCredentials) {
			t.Fatalf("%q: %d %s", cred, status, reply)
		}
		unchanged("wrong credentials")
	}
	if status, reply := h.post(t, "postmark", pm, hookUser, hookPassword); status != http.StatusOK || !strings.Contains(reply, `"processed"`) {
		t.Fatalf("%d %s", status, reply)
	}
	before.soft = 2
	unchanged("the soft bounce") // counted: 2
	if status, reply := h.post(t, "postmark", pm, hookUser, hookPassword); status != http.StatusOK || !strings.Contains(reply, `"duplicate"`) {
		t.Fatalf("a replay: %d %s", status, reply)
	}
	unchanged("a Postmark replay")
	old := strings.Replace(string(pm), `"ID": 4323372036854775811`, `"ID": 4323372036854775899`, 1)
	old = strings.Replace(old, h.e.Clock.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.0000000Z"),
		h.e.Clock.Now().Add(-7*24*time.Hour).UTC().Format(time.RFC3339), 1)
	if status, reply := h.post(t, "postmark", []byte(old), hookUser, hookPassword); status != http.StatusForbidden || !strings.Contains(reply, core.EWebhookRefused) {
		t.Fatalf("a week old: %d %s", status, reply)
	}
	unchanged("a week-old Postmark event")

	// A subscription is confirmed at SNS's URL (here the trusted test
	// prefix), and only once signed; one elsewhere is logged, not fetched.
	if status, reply := h.post(t, "ses", h.snsMessage(t, "SubscriptionConfirmation", "You have chosen to subscribe to the topic "+topicARN+".", "1", nil), "", ""); status != http.StatusOK || !strings.Contains(reply, `"subscribed"`) || h.confirmed.Load() != 1 {
		t.Fatalf("%d %s, confirmed %d", status, reply, h.confirmed.Load())
	}
	elsewhere := h.snsMessage(t, "SubscriptionConfirmation", "Subscribe", "2", func(m map[string]string) {
		m["SubscribeURL"] = "https://attacker.example/?Action=ConfirmSubscription"
	})
	if status, reply := h.post(t, "ses", elsewhere, "", ""); status != http.StatusOK || h.confirmed.Load() != 1 {
		t.Fatalf("%d %s, confirmed %d", status, reply, h.confirmed.Load())
	}

	// Too large a body is refused before it is read.
	if status, _ := h.post(t, "postmark", bytes.Repeat([]byte("x"), web.MaxBounceWebhookBytes+1), hookUser, hookPassword); status != http.StatusRequestEntityTooLarge {
		t.Fatalf("too large: %d", status)
	}

	// Refused calls so far: 6 signatures, certificates and topics (an
	// old message or one from the future is not counted), 4
	// credentials; at 20 the client waits, even with the right
	// credentials.
	for range 10 {
		h.post(t, "postmark", pm, hookUser, "wrong")
	}
	if status, reply := h.post(t, "postmark", pm, hookUser, hookPassword); status != http.StatusTooManyRequests {
		t.Fatalf("beyond the refusals: %d %s", status, reply)
	}
	unchanged("the refusals")

	// The operator's metrics count every call by provider and outcome.
	want := map[string]float64{
		"ses/refused": 8, "ses/processed": 1, "ses/duplicate": 1, "ses/subscribed": 2,
		"postmark/refused": 16, "postmark/processed": 1, "postmark/duplicate": 1, "postmark/invalid": 1,
	}
	if got := h.counted(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sendlater_bounce_webhook_calls_total %v, want %v", got, want)
	}
}

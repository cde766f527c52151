package inbound

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// postmarkEvent is a Postmark bounce or spam complaint webhook's body.
type postmarkEvent struct {
	RecordType  string            `json:"RecordType"`
	ID          json.Number       `json:"ID"`
	Type        string            `json:"Type"`
	TypeCode    int               `json:"TypeCode"`
	Email       string            `json:"Email"`
	Description string            `json:"Description"`
	Details     string            `json:"Details"`
	MessageID   string            `json:"MessageID"`
	ServerID    json.Number       `json:"ServerID"`
	Metadata    map[string]string `json:"Metadata"`
	BouncedAt   string            `json:"BouncedAt"`
}

// postmarkKinds are the bounce types acted on; the rest (auto-responders,
// subscription changes, challenge verifications...) say nothing of the
// address.
var postmarkKinds = map[string]core.BounceKind{
	"HardBounce":      core.BounceHard,
	"BadEmailAddress": core.BounceHard,
	"SoftBounce":      core.BounceSoft,
	"Transient":       core.BounceSoft,
	"DnsError":        core.BounceSoft,
	"Blocked":         core.BounceSoft,
	"SpamComplaint":   core.BounceComplaint,
}

// HandlePostmark takes one call of Postmark's bounce or spam complaint webhook:
// its basic auth credentials must be mail.postmark's; each event id is
// processed once.
func (w *Webhooks) HandlePostmark(ctx context.Context, call core.BounceWebhookCall) (core.BounceWebhookOutcome, error) {
	if w.Postmark.Password == "" {
		return "", core.Errorf(core.ENotFound, "There is no API endpoint POST /api/webhooks/postmark: mail.postmark.webhook_password is not set.")
	}
	if err := w.limited(ctx, call.Client); err != nil {
		return "", err
	}
	// Both compared, always, in constant time.
	user, pass := sameSecret(call.User, w.Postmark.User), sameSecret(call.Password, w.Postmark.Password)
	if !call.HasAuth || !user || !pass {
		w.logger().Warn("webhook postmark: wrong credentials, refused", "client", call.Client)
		return "", w.refused(ctx, call.Client, core.Errorf(core.EWrongCredentials, "The webhook's credentials (HTTP basic auth) are not mail.postmark's."))
	}
	var ev postmarkEvent
	dec := json.NewDecoder(bytes.NewReader(call.Body))
	dec.UseNumber()
	if err := dec.Decode(&ev); err != nil {
		return "", core.Errorf(core.EInvalidJSON, "The body must be a Postmark webhook's JSON.")
	}
	if ev.ID.String() == "" || len(ev.ID.String()) > 40 {
		return "", &core.Error{Code: core.EValidation, Message: "ID is required.", Fields: map[string]string{"ID": "must be the event's id"}}
	}
	if ev.RecordType != "Bounce" && ev.RecordType != "SpamComplaint" {
		return core.WebhookSkipped, nil // deliveries, opens, clicks, subscription changes
	}
	if at, err := time.Parse(time.RFC3339Nano, ev.BouncedAt); err == nil && w.Clock.Now().Sub(at) > maxBounceAge {
		return "", core.Errorf(core.EWebhookRefused, "BouncedAt must be within the last %d days: an older event is a replay.", int(maxBounceAge.Hours()/24))
	}
	kind, ok := postmarkKinds[ev.Type]
	if ev.RecordType == "SpamComplaint" {
		kind, ok = core.BounceComplaint, true
	}
	if !ok {
		return core.WebhookSkipped, nil
	}
	r := core.BounceReport{Source: "postmark", Kind: kind}
	if tok := ev.Metadata[PostmarkMetadataKey]; tok != "" && !strings.ContainsAny(tok, "@ <>") && w.Addresses != nil {
		r.ReturnPath = w.returnPath("bounces+" + tok + "@" + w.Addresses.Domain)
	}
	r.Reason = diagnostic(ev.Details)
	if r.Reason == "" {
		r.Reason = ev.Description
	}
	if kind == core.BounceComplaint {
		r.Reason = "abuse"
	}
	r.Status = enhancedStatus.FindString(ev.Details)
	return w.once(ctx, "postmark:"+ev.ID.String(), r)
}

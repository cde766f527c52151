package core

import (
	"context"
	"time"
)

// The bounces and complaints that sending providers report through their
// event webhooks (Amazon SES through SNS, Postmark) reach BounceService
// like those of the inbound SMTP listener: the provider's call is read and
// checked by the inbound room (inbound.Webhooks) and served by the web
// server (POST /api/webhooks/ses, POST /api/webhooks/postmark).

// EWebhookRefused: a provider's call that is not what it claims to be (a
// bad signature, a certificate from elsewhere, a topic not configured, a
// message too old): nothing changed.
const EWebhookRefused = "webhook/refused"

// BounceWebhookCall is one call of a provider's event webhook as the web
// server received it.
type BounceWebhookCall struct {
	Body []byte
	// User and Password are the HTTP basic auth credentials (Postmark).
	User, Password string
	HasAuth        bool
	// Client is the caller's address, as the limits count it.
	Client string
	// MessageType is SNS's x-amz-sns-message-type header (SES).
	MessageType string
}

// BounceWebhooks takes the providers' event webhooks. Each method answers
// what it did in a word (BounceWebhookOutcome), or an error: EWebhookRefused
// (a bad signature, an unknown topic, a stale message), EWrongCredentials
// (Postmark's credentials), ETooManyRequests (too many wrong ones),
// EInvalid (not the provider's shape), and a store failure, after which
// the provider delivers the call again.
type BounceWebhooks interface {
	HandleSES(ctx context.Context, c BounceWebhookCall) (BounceWebhookOutcome, error)
	HandlePostmark(ctx context.Context, c BounceWebhookCall) (BounceWebhookOutcome, error)
}

// BounceWebhookOutcome is what a webhook call did.
type BounceWebhookOutcome string

const (
	// WebhookProcessed: a report handed to BounceService (whose outcome
	// may still be "ignored": a token not ours, a message gone).
	WebhookProcessed BounceWebhookOutcome = "processed"
	// WebhookDuplicate: a message or event id seen before: nothing changed.
	WebhookDuplicate BounceWebhookOutcome = "duplicate"
	// WebhookSkipped: an event about nothing to act on (a delivery, an
	// open, a bounce without our return path).
	WebhookSkipped BounceWebhookOutcome = "skipped"
	// WebhookSubscribed: SNS's subscription confirmed (or logged for the
	// operator).
	WebhookSubscribed BounceWebhookOutcome = "subscribed"
)

// LimitWebhookSeen remembers each provider message or event id processed,
// so that a replay of it (or a second delivery) changes nothing; the
// window outlasts the providers' retries and the oldest message taken.
var LimitWebhookSeen = Limit{"webhook-seen", 1, 7 * 24 * time.Hour}

// LimitWebhookAuthClient counts one client's calls refused for their
// credentials or signature: beyond, it waits.
var LimitWebhookAuthClient = Limit{"webhook-auth-client", 20, 10 * time.Minute}

package core

import (
	"context"
	"time"
)

// Metrics hears what an operator counts: the services and the front ends
// tell it what happened, in words from a closed set (the constants below,
// route patterns, error classes), never a user id, an address or a raw
// path. The metrics/ folder implements it with Prometheus; NoMetrics is
// the silence of a process without metrics. Every method is cheap and safe
// for concurrent use: it is called on the request's and the send's path.
type Metrics interface {
	// Request is one HTTP request answered: its route pattern ("GET
	// /api/messages/{id}"), method, status and time; InFlight moves the
	// count of requests being answered.
	Request(route, method string, status int, took time.Duration)
	InFlight(delta int)
	// SignIn is one sign-in's outcome class (SignInOutcome), by method:
	// SignInPassword or SignInSocial.
	SignIn(method, outcome string)
	// MessageChanged is a message created, edited or postponed (the
	// Action* constants) through a channel (the Channel* constants).
	MessageChanged(action, channel string)
	// Sent is n recipients' (kind KindDelivery) or authors' (KindReminder)
	// emails with one outcome (the Outcome* constants); Late is how long
	// after its due time a delivery was handed to the mail server.
	Sent(kind, outcome string, n int)
	Late(late time.Duration)
	// Pass is one delivery pass of this process: how long it took, whether
	// the store let it finish, and when it ended.
	Pass(took time.Duration, ok bool, at time.Time)
	// Streams moves the count of open live lists.
	Streams(delta int)
	// Webhook is one business webhook call's outcome (OutcomeSent,
	// OutcomeRetried, OutcomeFailed).
	Webhook(outcome string)
	// StripeEvent is one payment provider's event: its type (as
	// StripeEventType bounds it) and outcome (applied, duplicate,
	// invalid, error).
	StripeEvent(eventType, outcome string)
	// BounceWebhook is one call of a sending provider's event webhook:
	// its provider (ses, postmark) and outcome (processed, duplicate,
	// skipped, subscribed, refused, invalid, error).
	BounceWebhook(provider, outcome string)
}

// NoMetrics counts nothing.
type NoMetrics struct{}

func (NoMetrics) Request(string, string, int, time.Duration) {}
func (NoMetrics) InFlight(int)                               {}
func (NoMetrics) SignIn(string, string)                      {}
func (NoMetrics) MessageChanged(string, string)              {}
func (NoMetrics) Sent(string, string, int)                   {}
func (NoMetrics) Late(time.Duration)                         {}
func (NoMetrics) Pass(time.Duration, bool, time.Time)        {}
func (NoMetrics) Streams(int)                                {}
func (NoMetrics) Webhook(string)                             {}
func (NoMetrics) StripeEvent(string, string)                 {}
func (NoMetrics) BounceWebhook(string, string)               {}

// metricsOr is m, or NoMetrics when there is none.
func metricsOr(m Metrics) Metrics {
	if m == nil {
		return NoMetrics{}
	}
	return m
}

// What happened to a message (MessageChanged).
const (
	ActionCreated   = "created"
	ActionEdited    = "edited"
	ActionPostponed = "postponed"
)

// The channels a message changes through (MessageChanged): the web app (a
// session), a postpone link of a reminder, the terminal app, the admin
// command line (an operator), and the API with a personal access token.
const (
	ChannelWeb      = "web"
	ChannelLink     = "link"
	ChannelTUI      = "tui"
	ChannelCLI      = "cli"
	ChannelAPIToken = "api_token"
)

type channelKey struct{}

// WithChannel returns ctx telling the channel a front end serves
// (ChannelTUI from the terminal app on the store); without it the channel
// follows from the identity (ChannelOf).
func WithChannel(ctx context.Context, channel string) context.Context {
	return context.WithValue(ctx, channelKey{}, channel)
}

// ChannelOf is the channel of ctx: the one WithChannel set, else the
// identity's: an access token is the API, an operator the command line, a
// session the web app.
func ChannelOf(ctx context.Context) string {
	if c, ok := ctx.Value(channelKey{}).(string); ok {
		return c
	}
	switch actorOf(ctx) {
	case ActorToken:
		return ChannelAPIToken
	case ActorOperator:
		return ChannelCLI
	}
	return ChannelWeb
}

// What an email or a webhook call came to (Sent, Webhook): handed to the
// mail server (or answered 2xx), to be tried again, failed for good (its
// retries ran out, or it could not be made), refused by its recipient
// (who refused every message), or bounced (the mail server refused it
// for good).
const (
	OutcomeSent    = "sent"
	OutcomeRetried = "retried"
	OutcomeFailed  = "failed"
	OutcomeRefused = "refused"
	OutcomeBounced = "bounced"
)

// What Sent counts: recipients' deliveries and authors' reminders.
const (
	KindDelivery = "delivery"
	KindReminder = "reminder"
)

// The ways to sign in (SignIn): an email and password, or a social
// provider.
const (
	SignInPassword = "password"
	SignInSocial   = "social"
)

// SignInOutcome is the class of a sign-in's error: ok, wrong_credentials,
// limited (too many failures, a proof of work asked), invalid (a field
// missing), disabled, incomplete (a social sign-in that needs the email
// address, or a sign-in to the account that has it), or error.
func SignInOutcome(err error) string {
	switch ErrorCode(err) {
	case EEmailRequired, EAccountExists:
		return "incomplete"
	case "":
		return "ok"
	case EWrongCredentials:
		return "wrong_credentials"
	case ETooManyRequests, EProofRequired:
		return "limited"
	case EValidation:
		return "invalid"
	case EUserDisabled:
		return "disabled"
	}
	return "error"
}

// StripeEventType is eventType when it is one the service applies, else
// "other", so that the label's values stay a short list.
func StripeEventType(eventType string) string {
	if (&BillingEvent{Type: eventType}).changesSubscription() {
		return eventType
	}
	return "other"
}

package core

import (
	"context"
)

// Tracer makes the spans of a trace (issue 34): the web server's requests,
// the services' calls, the store's transactions and the calls out to the
// mail server, webhooks and the payment provider. The tracing/ folder
// implements it with OpenTelemetry; a nil Tracer (or NoTracer) traces
// nothing. A span's name and attributes are words of ours, counts, route
// patterns and error codes: never a user id, an address or a message's
// content.
type Tracer interface {
	// Start begins a span named name, a child of ctx's span or the root of
	// a new trace (which the sampler may leave unrecorded); the returned
	// context carries it.
	Start(ctx context.Context, name string, kind SpanKind) (context.Context, Span)
	// Traced reports whether ctx carries a span being recorded: the calls
	// below a request or a pass make spans only then (StartChild).
	Traced(ctx context.Context) bool
	// Continue is ctx with the caller's trace (the W3C traceparent and
	// tracestate headers, read with get) as the parent of what starts
	// under it. Only a trusted proxy's headers are continued.
	Continue(ctx context.Context, get func(key string) string) context.Context
	// Inject writes ctx's trace (traceparent, tracestate) with set, for a
	// call out that the receiver may continue.
	Inject(ctx context.Context, set func(key, value string))
}

// Span is one span being recorded. Its methods are safe on the span of
// NoTracer, which records nothing.
type Span interface {
	// SetName renames the span (a request's route is known once routed).
	SetName(name string)
	SetString(key, value string)
	SetInt(key string, value int)
	// End ends the span; a non-nil err marks it failed with the error's
	// code (ErrorCode), never its text.
	End(err error)
}

// SpanKind is what a span stands for: work inside the process, a request
// served, or a call out.
type SpanKind int

const (
	SpanInternal SpanKind = iota
	SpanServer
	SpanClient
)

// NoTracer traces nothing.
type NoTracer struct{}

func (NoTracer) Start(ctx context.Context, _ string, _ SpanKind) (context.Context, Span) {
	return ctx, noSpan{}
}
func (NoTracer) Traced(context.Context) bool                                         { return false }
func (NoTracer) Continue(ctx context.Context, _ func(string) string) context.Context { return ctx }
func (NoTracer) Inject(context.Context, func(string, string))                        {}

type noSpan struct{}

func (noSpan) SetName(string)           {}
func (noSpan) SetString(string, string) {}
func (noSpan) SetInt(string, int)       {}
func (noSpan) End(error)                {}

// StartChild starts a span under ctx's span when t records it; otherwise
// (no tracer, or an unsampled or missing parent) it returns ctx and a span
// that records nothing, at no cost.
func StartChild(t Tracer, ctx context.Context, name string, kind SpanKind) (context.Context, Span) {
	if t == nil || !t.Traced(ctx) {
		return ctx, noSpan{}
	}
	return t.Start(ctx, name, kind)
}

// startSpan starts a span under ctx's, or a trace of its own (the delivery
// pass's); a nil t records nothing.
func startSpan(t Tracer, ctx context.Context, name string, kind SpanKind) (context.Context, Span) {
	if t == nil {
		return ctx, noSpan{}
	}
	return t.Start(ctx, name, kind)
}

type noStoreSpans struct{}

// WithoutStoreSpans is ctx whose store transactions make no span of their
// own: they are part of the span ctx carries (a request's authentication,
// its token and session lookups, is the request's).
func WithoutStoreSpans(ctx context.Context) context.Context {
	return context.WithValue(ctx, noStoreSpans{}, true)
}

// StoreSpansOff reports whether ctx is WithoutStoreSpans's.
func StoreSpansOff(ctx context.Context) bool {
	return ctx.Value(noStoreSpans{}) != nil
}

// The names of the spans core makes (docs/ops.md lists them all).
const (
	SpanCreateMessage   = "core.CreateMessage"
	SpanEditMessage     = "core.EditMessage"
	SpanPostponeMessage = "core.PostponeMessage"
	SpanPostponeLink    = "core.PostponeByLink"
	SpanDeliveryPass    = "delivery.pass"
	SpanDeliver         = "delivery.message"
	SpanRemind          = "delivery.reminder"
	SpanOutbox          = "delivery.outbox"
	SpanSMTPSend        = "smtp.send"
	SpanWebhookPost     = "webhook.post"
)

// The attributes of core's spans.
const (
	AttrChannel    = "sendlater.channel"    // web, link, tui, cli, api_token
	AttrRecipients = "message.recipients"   // how many recipients a message has
	AttrOutcome    = "sendlater.outcome"    // sent, retried, failed, ...
	AttrKind       = "sendlater.email_kind" // delivery, reminder, outbox
)

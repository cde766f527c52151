package core

import (
	"context"
	"maps"
	"net/url"
)

// TraceMailer is m with a span (SpanSMTPSend) of each email sent under a
// recorded span; nil t: m itself.
func TraceMailer(m Mailer, t Tracer) Mailer {
	if t == nil || m == nil {
		return m
	}
	return tracedMailer{m: m, t: t}
}

type tracedMailer struct {
	m Mailer
	t Tracer
}

func (tm tracedMailer) Send(ctx context.Context, e *Email) (err error) {
	ctx, span := StartChild(tm.t, ctx, SpanSMTPSend, SpanClient)
	defer func() { span.SetString(AttrOutcome, sendOutcome(err)); span.End(err) }()
	span.SetInt(AttrRecipients, len(e.To))
	return tm.m.Send(ctx, e)
}

// sendOutcome is a call's outcome: sent, retried (a temporary failure) or
// failed.
func sendOutcome(err error) string {
	switch {
	case err == nil:
		return OutcomeSent
	case isTemporary(err):
		return OutcomeRetried
	}
	return OutcomeFailed
}

// TraceWebhooks is w with a span (SpanWebhookPost) of each call under a
// recorded span, whose trace the call carries to its receiver (the W3C
// traceparent header); nil t: w itself.
func TraceWebhooks(w WebhookSender, t Tracer) WebhookSender {
	if t == nil || w == nil {
		return w
	}
	return tracedWebhooks{w: w, t: t}
}

type tracedWebhooks struct {
	w WebhookSender
	t Tracer
}

func (tw tracedWebhooks) Post(ctx context.Context, target string, body []byte, headers map[string]string) (err error) {
	if !tw.t.Traced(ctx) {
		return tw.w.Post(ctx, target, body, headers)
	}
	ctx, span := tw.t.Start(ctx, SpanWebhookPost, SpanClient)
	defer func() { span.SetString(AttrOutcome, sendOutcome(err)); span.End(err) }()
	if u, err := url.Parse(target); err == nil {
		span.SetString("url.scheme", u.Scheme)
	}
	h := make(map[string]string, len(headers)+2)
	maps.Copy(h, headers)
	tw.t.Inject(ctx, func(k, v string) { h[k] = v })
	return tw.w.Post(ctx, target, body, h)
}

// TracePayments is p with a span of each call to the provider
// ("stripe.CreateCustomer", ...) under a recorded span; nil t: p itself.
func TracePayments(p PaymentProvider, t Tracer) PaymentProvider {
	if t == nil || p == nil {
		return p
	}
	return tracedPayments{PaymentProvider: p, t: t}
}

// tracedPayments traces the calls that reach the provider; ParseWebhook
// (a signature check, here) passes through.
type tracedPayments struct {
	PaymentProvider
	t Tracer
}

func (tp tracedPayments) CreateCustomer(ctx context.Context, c CustomerInput) (_ string, err error) {
	ctx, span := StartChild(tp.t, ctx, "stripe.CreateCustomer", SpanClient)
	defer func() { span.End(err) }()
	return tp.PaymentProvider.CreateCustomer(ctx, c)
}

func (tp tracedPayments) CreateCheckoutSession(ctx context.Context, in CheckoutInput) (_ *CheckoutSession, err error) {
	ctx, span := StartChild(tp.t, ctx, "stripe.CreateCheckoutSession", SpanClient)
	defer func() { span.End(err) }()
	return tp.PaymentProvider.CreateCheckoutSession(ctx, in)
}

func (tp tracedPayments) CreatePortalSession(ctx context.Context, customerID, returnURL string) (_ string, err error) {
	ctx, span := StartChild(tp.t, ctx, "stripe.CreatePortalSession", SpanClient)
	defer func() { span.End(err) }()
	return tp.PaymentProvider.CreatePortalSession(ctx, customerID, returnURL)
}

func (tp tracedPayments) Subscriptions(ctx context.Context, customerID string) (_ []Subscription, err error) {
	ctx, span := StartChild(tp.t, ctx, "stripe.Subscriptions", SpanClient)
	defer func() { span.End(err) }()
	return tp.PaymentProvider.Subscriptions(ctx, customerID)
}

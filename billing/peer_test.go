package billing_test

import (
	"github.com/sendlater/sendlater/billing"
	"github.com/sendlater/sendlater/billing/stripemock"
)

// The peer is stripemock.Peer: stripe-mock behind a proxy that records the
// requests and plays Stripe's state.

const (
	fixturePrice  = stripemock.FixturePrice
	webhookSecret = "whsec_test_sendlater"
)

// client is the provider under test, talking to the peer.
func client(p *stripemock.Peer) *billing.Stripe { return newClient(p.APIBase) }

func newClient(apiBase string) *billing.Stripe {
	return billing.New(billing.Config{SecretKey: "sk_test_sendlater", WebhookSecret: webhookSecret, APIBase: apiBase})
}

var (
	event = stripemock.Event
	sign  = stripemock.Sign
)

package inbound

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Webhooks takes the bounces and complaints of the sending providers'
// event webhooks (core.BounceWebhooks): Amazon SES through SNS, whose
// signature is verified against Amazon's certificate, and Postmark, which
// signs nothing and is let in by HTTP basic auth. Each call's message or
// event id is remembered (core.LimitWebhookSeen), so that a replay changes
// nothing. What a report means is core's (BounceService); the return path
// that names the message and the recipient is the VERP address the email
// was sent with, which SES keeps in the mail's source and Postmark in the
// metadata the SMTP transport adds (mailer.SMTPConfig.MetadataHeader).
type Webhooks struct {
	Addresses *core.BounceAddresses
	Processor Processor
	Limits    *core.Limiter
	Clock     core.Clock
	Logger    *slog.Logger
	SES       SESConfig
	Postmark  PostmarkConfig

	certs certCache
}

var _ core.BounceWebhooks = (*Webhooks)(nil)

// SESConfig is the SES endpoint's settings (mail.ses.*).
type SESConfig struct {
	// TopicARNs are the SNS topics taken; none: the endpoint is off.
	TopicARNs []string
	// MaxAge is the oldest message taken, by its signed Timestamp; 0:
	// DefaultSNSMaxAge.
	MaxAge time.Duration
	// Client fetches the signing certificates and confirms subscriptions;
	// nil: a client with a 10-second timeout. It never follows a
	// redirect.
	Client *http.Client
	// TestURLPrefix is for tests only (never set from the config): a URL
	// prefix (an httptest TLS server's) whose certificates and
	// subscription URLs are trusted besides Amazon's.
	TestURLPrefix string
}

// DefaultSNSMaxAge: a signed SNS message older than an hour is a replay.
const DefaultSNSMaxAge = time.Hour

// PostmarkConfig is the Postmark endpoint's settings (mail.postmark.*).
type PostmarkConfig struct {
	// User and Password are the credentials in the webhook's URL; an
	// empty Password: the endpoint is off.
	User, Password string
}

// PostmarkMetadataKey is the Postmark metadata field that carries the
// return path's token (the SMTP header X-PM-Metadata-sendlater-verp).
const PostmarkMetadataKey = "sendlater-verp"

// PostmarkMetadataHeader is the header the SMTP transport adds to every
// email with a return path when Postmark's webhook is configured.
const PostmarkMetadataHeader = "X-PM-Metadata-" + PostmarkMetadataKey

// maxBounceAge bounds a Postmark event's age: younger than the ids are
// remembered (core.LimitWebhookSeen, 7 days), so that a replay is always
// recognized.
const maxBounceAge = 6 * 24 * time.Hour

func (w *Webhooks) logger() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// limited refuses a client that made too many calls refused for their
// credentials or signature.
func (w *Webhooks) limited(ctx context.Context, client string) error {
	wait, err := w.Limits.Wait(ctx, core.LimitWebhookAuthClient, client)
	if err != nil {
		return err
	}
	if wait > 0 {
		return &core.Error{Code: core.ETooManyRequests, Message: "Too many refused webhook calls from this address. Try again later.", RetryAfter: wait}
	}
	return nil
}

// refused counts a call refused for its credentials or signature and
// returns err.
func (w *Webhooks) refused(ctx context.Context, client string, err error) error {
	if _, rerr := w.Limits.Record(ctx, core.LimitWebhookAuthClient, client); rerr != nil {
		w.logger().Warn("webhook: counting a refused call failed", "err", rerr)
	}
	return err
}

// once processes the report r under the provider's id, unless that id
// was seen: the id is taken first (core.Limiter.Once), so that of two
// deliveries at once exactly one processes, and given back when
// processing failed, so that the provider's retry is processed.
func (w *Webhooks) once(ctx context.Context, id string, r core.BounceReport) (core.BounceWebhookOutcome, error) {
	seen, first, err := w.Limits.Once(ctx, core.LimitWebhookSeen, id)
	if err != nil {
		return "", err
	}
	if !first {
		w.logger().Info("webhook: seen before, nothing changed", "source", r.Source)
		return core.WebhookDuplicate, nil
	}
	if r.ReturnPath == "" {
		w.logger().Info("webhook: a report without a return path of ours, dropped", "source", r.Source)
		return core.WebhookSkipped, nil
	}
	if _, err := w.Processor.Process(ctx, r); err != nil {
		if rerr := w.Limits.Release(context.WithoutCancel(ctx), core.LimitWebhookSeen, id, seen); rerr != nil {
			w.logger().Warn("webhook: forgetting a failed call's id failed", "err", rerr)
		}
		return "", err
	}
	return core.WebhookProcessed, nil
}

// returnPath is the first of candidates that is an address of the bounce
// domain's return paths, in any of the forms a provider writes one (bare,
// in angle brackets, with a display name); "" when none is.
func (w *Webhooks) returnPath(candidates ...string) string {
	for _, c := range candidates {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if a, err := mail.ParseAddress(c); err == nil {
			c = a.Address
		}
		if w.Addresses.IsBounceAddress(c) {
			return c
		}
	}
	return ""
}

// enhancedStatus finds an enhanced status code (RFC 3463) in a remote
// server's words.
var enhancedStatus = regexp.MustCompile(`\b[245]\.\d{1,3}\.\d{1,3}\b`)

// diagnostic drops the "smtp;" type of a diagnostic code (RFC 3464).
func diagnostic(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ';'); i > 0 && i < 10 && strings.EqualFold(strings.TrimSpace(s[:i]), "smtp") {
		s = strings.TrimSpace(s[i+1:])
	}
	return s
}

// sameSecret compares a and b in constant time, whatever their lengths.
func sameSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

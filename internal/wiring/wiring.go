// Package wiring is the one service graph of Sendlater: every service of
// core wired over one store, a mailer and the email templates. cmd/sendlater
// builds it from the config for serve, the admin commands, tui and send-due;
// internal/testenv builds it with test values (a ManualClock, cheap password
// hashing, fixed keys), so tests run the services as the binary wires them.
package wiring

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/oauth"
)

// DefaultPassLogSize is how many passes the delivery log remembers when
// Options.PassLogSize is zero.
const DefaultPassLogSize = 100

// Options are what the graph is built from. Store, Mailer, Emails and Clock
// are required; so is MasterKey unless every key of Keys is set.
type Options struct {
	Store  core.Store
	Mailer core.Mailer // Build's release closes it when it is an io.Closer
	Emails core.Emails
	Clock  core.Clock
	Logger *slog.Logger // default: discard

	// MasterKey is the store's encryption key, from which the keys that
	// Keys leaves empty are derived with core.DeriveKey.
	MasterKey []byte
	Keys      Keys

	BaseURL string
	// AppName (config app_name) names the site in the browser's passkey
	// prompts (the relying party's name) and in authenticator apps (the
	// TOTP issuer); empty: core.DefaultIssuer.
	AppName        string
	Prices         core.PriceMap
	Reminders      core.Reminders
	PasswordParams core.PasswordParams // zero: core's defaults
	IPv6Prefix     int                 // of the limits' keys; zero: core's default

	// ContactTo receives the contact form; OperatorTo the daily summary.
	ContactTo  core.Address
	OperatorTo core.Address

	// Delivery and scheduler settings.
	Concurrency   int
	LeaseDuration time.Duration
	Interval      time.Duration
	PassLogSize   int                         // default DefaultPassLogSize
	Process       string                      // names this process in the delivery health records
	Webhooks      core.WebhookSender          // nil: business webhooks wait in the store
	Heartbeat     func(context.Context) error // the scheduler's after each pass; nil: none

	// Billing is payments through a provider, nil while payments are off.
	Billing *core.BillingService
	// SocialFlow is the social sign-in flow; nil: none configured.
	SocialFlow *oauth.Flow
	// Metrics hears what the services count (the metrics/ folder's
	// Prometheus families); nil: nothing is counted.
	Metrics core.Metrics
	// Tracer makes the services' spans, and those of the emails, webhook
	// calls and payment provider's calls they make (the tracing/ folder's
	// OpenTelemetry); nil: none.
	Tracer core.Tracer
	// Domains checks recipients' domains when a message is saved; nil:
	// no check.
	Domains core.MailDomains
	// BounceDomain is mail.bounce_domain: each email to a recipient gets
	// the return path bounces+TOKEN@ it; "": none.
	BounceDomain string
	// SealedLinkValidity is how long after delivery a sealed message's
	// recipient link opens it; zero: core.DefaultOpenValidity.
	SealedLinkValidity time.Duration

	// Blobs keeps the attachments' sealed bytes (attachments.storage:
	// the store's own, or blob/s3); nil: no attachments API.
	Blobs core.BlobStore
	// AttachmentLimits are the plans' limits (attachments.*); a plan
	// missing from it has core.DefaultAttachmentLimits'.
	AttachmentLimits map[core.PlanID]core.AttachmentLimits
	// AttachmentPartSize is the upload protocol's part; zero:
	// core.DefaultAttachmentPartSize.
	AttachmentPartSize int64
	// StaleUploads is how long an upload may stay incomplete before
	// attachments gc removes it; zero: core.DefaultStaleUpload.
	StaleUploads time.Duration
	// FileLinkValidity is attachments.link_valid_for: how long after
	// delivery a recipient's file link downloads; zero:
	// core.DefaultFileLinkValidity.
	FileLinkValidity time.Duration
	// InlineMax is attachments.inline_max: a message's files totalling at
	// most this many bytes also go in its emails; 0: never.
	InlineMax int64
}

// Keys are the keys derived from the master key; each one set overrides the
// derived one (the test environment's fixed keys).
type Keys struct {
	SigningKey    []byte // ID tokens (core.PurposeIDTokens)
	RefusalSecret []byte // refusal links (core.PurposeRefusalLinks)
	LimitKey      []byte // the limits' key hashes (core.PurposeLimitKeys)
	BounceSecret  []byte // the return paths' tokens (core.PurposeBounceAddresses)
	OpenKey       []byte // sealed messages' open links (core.PurposeSealedOpen)
	AttachmentKey []byte // files sealed at rest (core.PurposeAttachments)
	FileLinkKey   []byte // recipients' file links (core.PurposeFileLinks)
}

// Graph is every service of core, wired once.
type Graph struct {
	Mailer     core.Mailer
	Emails     core.Emails
	Limits     *core.Limiter
	Outbox     *core.Outbox
	Auth       *core.Auth
	Social     *core.SocialAuth
	SocialFlow *oauth.Flow
	// PasskeyProblem is one line for the start-up log when browsers will
	// refuse passkeys at the base URL (passkey.FromBaseURL); "" when not.
	PasskeyProblem string
	// Billing is nil while payments are off; Payments is then PaymentsOff.
	Billing  *core.BillingService
	Payments core.Payments
	Messages *core.MessageService
	Contact  *core.ContactService
	Postpone *core.PostponeLinkService
	Refusals *core.RefusalService
	// Bounces makes and reads the return paths; nil without a bounce
	// domain.
	Bounces *core.BounceAddresses
	// BounceReports acts on the bounces and complaints that come back.
	BounceReports  *core.BounceService
	Opens          *core.SealedOpenService
	WebhookSecrets *core.WebhookSecretService
	Drafts         *core.DraftService
	// Attachments is the authors' files; nil when Options.Blobs is.
	Attachments *core.AttachmentService
	// FileLinks serves the recipients' file links; nil when Attachments is.
	FileLinks *core.FileLinkService
	Delivery  *core.Delivery
	Admin     *core.AdminService
	// Operator is the author's services for an operator acting for a user
	// (the admin socket's author routes, tui --user): they record in the
	// audit log what the operator does and reads.
	Operator  *core.OperatorAudit
	Sweeper   *core.Sweeper
	Summary   *core.Summary
	Scheduler *core.Scheduler
	PageViews *core.PageViewService
}

// Build wires the services of o. release closes the mailer's connections;
// on an error Build has already released them.
func Build(o Options) (g *Graph, release func(), err error) {
	release = func() {
		if c, ok := o.Mailer.(io.Closer); ok {
			c.Close()
		}
	}
	keys, err := o.keys()
	if err != nil {
		if o.Mailer != nil {
			release()
		}
		return nil, nil, err
	}
	return build(o, keys), release, nil
}

func (o *Options) keys() (Keys, error) {
	if o.Store == nil || o.Mailer == nil || o.Emails == nil || o.Clock == nil {
		return Keys{}, errors.New("wiring: Store, Mailer, Emails and Clock are required")
	}
	k := o.Keys
	derive := func(key *[]byte, purpose string) error {
		if *key != nil {
			return nil
		}
		if o.MasterKey == nil {
			return errors.New("wiring: a MasterKey or every key of Keys is required")
		}
		*key = core.DeriveKey(o.MasterKey, purpose)
		return nil
	}
	if err := errors.Join(derive(&k.SigningKey, core.PurposeIDTokens),
		derive(&k.RefusalSecret, core.PurposeRefusalLinks), derive(&k.LimitKey, core.PurposeLimitKeys),
		derive(&k.BounceSecret, core.PurposeBounceAddresses),
		derive(&k.OpenKey, core.PurposeSealedOpen), derive(&k.AttachmentKey, core.PurposeAttachments),
		derive(&k.FileLinkKey, core.PurposeFileLinks)); err != nil {
		return Keys{}, err
	}
	return k, nil
}

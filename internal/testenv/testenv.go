// Package testenv is the one test environment of core, web and cmd tests:
// a real bbolt store in a temporary directory, the real email templates and
// SMTP transport against the in-process test SMTP server, a ManualClock, and
// the services of core wired over them by internal/wiring, as cmd wires
// them, with password hashing made cheap. Tests change what they need on the returned Env.
package testenv

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// Store is what the services are wired over: either backend.
type Store = core.Store

var (
	_ Store = (*bolt.DB)(nil)
	_ Store = (*postgres.DB)(nil)
)

// The backends an environment can run on (Config.Backend).
const (
	Bolt     = "bolt"
	Postgres = "postgres"
)

// Backends runs fn as a subtest on each backend, bolt then PostgreSQL (in
// a schema of its own, skipped with one line when no server answers, as
// pgtest does), each with c (its Backend set).
func Backends(t *testing.T, c Config, fn func(t *testing.T, e *Env)) {
	t.Helper()
	for _, backend := range []string{Bolt, Postgres} {
		t.Run(backend, func(t *testing.T) {
			c := c
			c.Backend = backend
			fn(t, New(t, c))
		})
	}
}

// Keys and secrets of every test environment.
var (
	Key           = []byte("k3y-0f-32-bytes-for-aes-256-gcm!")
	SigningKey    = []byte("an ID token signing key of 32+ bytes")
	RefusalSecret = []byte("a refusal token secret, 32 bytes")
	LimitKey      = []byte("the key of the limits' key hashes")
)

// CheapPasswords are argon2id parameters that keep tests fast; the format and
// the checks are the same as with the defaults.
var CheapPasswords = core.PasswordParams{Memory: 64, Time: 1, Threads: 1}

// Defaults of Config.
const (
	DefaultBaseURL = "https://sendlater.test"
	Sender         = "noreply@sendlater.test"
)

// DefaultStart is when the clock of an environment starts.
var DefaultStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Config changes an environment; the zero value is the usual one.
type Config struct {
	BaseURL string    // links in emails; default DefaultBaseURL
	Start   time.Time // the clock's start; default DefaultStart
	// Path and Key open an existing store (a data directory of a command
	// under test); default a new store in the test's temporary directory
	// under Key.
	Path string
	Key  []byte
	// Sync commits with fsync, as in production (benchmarks); default off.
	Sync bool
	// SMTP is the server the mailer sends to; default a new one.
	SMTP *smtptest.Server
	// PoolSize is the SMTP connections kept open; default the mailer's.
	PoolSize int
	// Logger receives the services' logs; default none.
	Logger *slog.Logger
	// Backend is Bolt (the default) or Postgres: a new schema of the
	// PostgreSQL test server, dropped after the test (Path is then unused).
	Backend string
	// PostgresURL is the PostgreSQL store's URL (a pgtest.Proxy's, to cut
	// its connections); default a new schema of the test server.
	PostgresURL string
	// Metrics hears what the services count; default nothing is counted.
	Metrics core.Metrics
	// Tracer makes the services' and the store's spans (tracing/);
	// default none.
	Tracer core.Tracer
	// Webhooks posts business webhooks (traced as serve's are); default
	// none: calls wait in the store.
	Webhooks core.WebhookSender
	// Domains checks recipients' domains on save; default none.
	Domains core.MailDomains
	// BounceDomain is mail.bounce_domain (VERP return paths); default none.
	BounceDomain string
	// TokenHeader is the mailer's header of the return path's token
	// (mailer.SMTPConfig.TokenHeader, set by serve for Postmark); default
	// none.
	TokenHeader string
	// SealedLinkValidity is sealed.link_valid_for; zero: a year.
	SealedLinkValidity time.Duration
	// Blobs keeps the attachments' bytes; default the store's own (as
	// serve's attachments.storage: store), else blob/s3 over an S3 server
	// in the test's process (blob/s3/s3test).
	Blobs core.BlobStore
	// AttachmentLimits are the plans' limits of files; default core's.
	AttachmentLimits map[core.PlanID]core.AttachmentLimits
	// AttachmentPartSize is the upload's part; default core's.
	AttachmentPartSize int64
	// FileLinkValidity is attachments.link_valid_for; zero: 90 days.
	FileLinkValidity time.Duration
	// InlineMax is attachments.inline_max; zero: files never go in the
	// emails.
	InlineMax int64
}

// Env is a store, a mail server, a clock and the services over them.
type Env struct {
	Ctx context.Context
	// Store is the backend the services are wired over; DB is the same
	// store when it is bbolt, nil on PostgreSQL.
	Store   Store
	DB      *bolt.DB
	Clock   *core.ManualClock
	BaseURL string
	Mailer  core.Mailer
	Emails  core.Emails
	Mailbox // what the SMTP server received, in order

	Limits         *core.Limiter
	Outbox         *core.Outbox
	Auth           *core.Auth
	Social         *core.SocialAuth
	Messages       *core.MessageService
	Contact        *core.ContactService
	Postpone       *core.PostponeLinkService
	Refusals       *core.RefusalTokens
	Refuse         *core.RefusalService
	WebhookSecrets *core.WebhookSecretService
	Drafts         *core.DraftService
	Delivery       *core.Delivery
	Admin          *core.AdminService
	Operator       *core.OperatorAudit
	PageViews      *core.PageViewService
	Attachments    *core.AttachmentService
	// Blobs is where the attachments' sealed bytes are.
	Blobs core.BlobStore
	// Graph is every service as internal/wiring built it (the fields
	// above are its services; Summary, Sweeper, Scheduler are here).
	Graph *wiring.Graph
}

// New returns an environment that the end of the test closes; the store must
// then be consistent.
func New(tb testing.TB, c Config) *Env {
	tb.Helper()
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Start.IsZero() {
		c.Start = DefaultStart
	}
	if c.Path == "" {
		c.Path = filepath.Join(tb.TempDir(), "sendlater.db")
	}
	if c.Key == nil {
		c.Key = Key
	}
	if c.SMTP == nil {
		c.SMTP = smtptest.Start(tb)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	st, db := openStore(tb, c)
	m, err := mailer.NewSMTP(mailer.SMTPConfig{
		Host: c.SMTP.Host(), Port: c.SMTP.Port(), TLS: mailer.TLSNone, PoolSize: c.PoolSize,
		From: core.Address{Name: "Sendlater", Address: Sender}, Timeout: 5 * time.Second, TokenHeader: c.TokenHeader,
	})
	if err != nil {
		tb.Fatal(err)
	}
	emails, err := mailer.NewTemplates("Sendlater", c.BaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	clock := core.NewManualClock(c.Start)
	e := &Env{
		Ctx: context.Background(), Store: st, DB: db, Clock: clock, BaseURL: c.BaseURL,
		Mailer: m, Emails: emails, Mailbox: Mailbox{SMTP: c.SMTP}, Blobs: c.Blobs,
	}
	if b, ok := st.(interface{ Blobs() core.BlobStore }); ok && e.Blobs == nil {
		e.Blobs = b.Blobs() // the default of serve: the files inside the store
	}
	if e.Blobs == nil {
		e.Blobs = &lazyBlobs{tb: tb}
	}
	tb.Cleanup(e.wire(tb, c))
	return e
}

// openStore opens the store c names, closed (and a bbolt one checked) when
// tb ends; db is the same store when it is bbolt.
func openStore(tb testing.TB, c Config) (st Store, db *bolt.DB) {
	tb.Helper()
	if c.Backend == Postgres {
		url := c.PostgresURL
		if url == "" {
			url = pgtest.URL(tb)
		}
		pg, err := postgres.Open(context.Background(), url, postgres.Options{Key: c.Key})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { pg.Close() })
		return pg, nil
	}
	db, err := bolt.Open(c.Path, bolt.Options{Key: c.Key, NoSync: !c.Sync})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Check(); err != nil {
			tb.Errorf("store check: %v", err)
		}
		db.Close()
	})
	return db, db
}

// wire builds the services through internal/wiring, as cmd does, with the
// fixed keys and cheap password hashing; it returns the release of the
// mailer.
func (e *Env) wire(tb testing.TB, c Config) (release func()) {
	tb.Helper()
	g, release, err := wiring.Build(wiring.Options{
		Store: e.Store, Mailer: e.Mailer, Emails: e.Emails, Clock: e.Clock, Logger: c.Logger,
		MasterKey: c.Key, Keys: wiring.Keys{SigningKey: SigningKey, RefusalSecret: RefusalSecret, LimitKey: LimitKey},
		BaseURL: e.BaseURL, Reminders: core.DefaultReminders, PasswordParams: CheapPasswords,
		Concurrency: 4, PassLogSize: 10, Process: "test", Metrics: c.Metrics, Domains: c.Domains,
		Tracer: c.Tracer, Webhooks: c.Webhooks,
		BounceDomain: c.BounceDomain, SealedLinkValidity: c.SealedLinkValidity,
		Blobs: e.Blobs, AttachmentLimits: c.AttachmentLimits, AttachmentPartSize: c.AttachmentPartSize,
		FileLinkValidity: c.FileLinkValidity, InlineMax: c.InlineMax,
	})
	if c.Tracer != nil {
		e.Store.(interface{ TraceTransactions(core.Tracer) }).TraceTransactions(c.Tracer)
	}
	if err != nil {
		tb.Fatal(err)
	}
	e.Graph = g
	e.Limits, e.Outbox, e.Auth, e.Social = g.Limits, g.Outbox, g.Auth, g.Social
	e.Messages, e.Contact, e.Postpone = g.Messages, g.Contact, g.Postpone
	e.Refuse, e.Refusals = g.Refusals, g.Refusals.Tokens
	e.Drafts, e.Attachments = g.Drafts, g.Attachments
	e.WebhookSecrets, e.Delivery, e.Admin, e.Operator, e.PageViews = g.WebhookSecrets, g.Delivery, g.Admin, g.Operator, g.PageViews
	// What the outbox holds leaves before a test reads the mailbox, as the
	// server's woken scheduler would send it.
	e.Mailbox.Flush = func() {
		if err := e.Delivery.RunOutbox(e.Ctx); err != nil {
			c.Logger.Error("outbox", "err", err)
		}
	}
	return release
}

// MustUser stores a user with email in the time zone zone (IANA; "": UTC),
// on an active plan unless plan is starter or empty.
func (e *Env) MustUser(tb testing.TB, email, zone string, plan core.PlanID) *core.User {
	tb.Helper()
	now := e.Clock.Now()
	u := &core.User{Email: email, Name: "Ada Lovelace", Timezone: zone, CreatedAt: now, UpdatedAt: now}
	if plan != "" && plan != core.PlanStarter {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(plan), "active"
	}
	if err := e.Store.CreateUser(e.Ctx, u); err != nil {
		tb.Fatal(err)
	}
	return u
}

// As is the environment's context acting as the user uid, as a bearer
// token of theirs would make it.
func (e *Env) As(uid string) context.Context {
	return core.WithIdentity(e.Ctx, &core.Identity{UserID: uid})
}

// Acting is the environment's context carrying id.
func (e *Env) Acting(id *core.Identity) context.Context { return core.WithIdentity(e.Ctx, id) }

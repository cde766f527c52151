// Package web is the HTTP side of Sendlater: the JSON API of API.md, the
// embedded SPA, the admin socket, and the Go clients of both (APIClient,
// AdminClient).
package web

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Server serves the API and the SPA. It depends on core's service
// interfaces only; they are wired in cmd.
type Server struct {
	Logger  *slog.Logger
	BaseURL string
	// AppName is shown on the pages the server renders itself.
	AppName string
	UI      fs.FS // the SPA build; nil or without index.html: a notice page
	Clock   core.Clock

	Identities core.Identities
	// SignIns lists and ends the user's sessions (Settings → Security);
	// nil: Identities, when it is one (core.Auth is).
	SignIns core.SignIns
	// Passkeys adds, lists and removes passkeys and signs in with them;
	// nil: Identities, when it is one.
	Passkeys core.PasskeyAccounts
	// DeviceFlow signs terminals in by a code approved in the web app;
	// nil: Identities, when it is one.
	DeviceFlow core.DeviceFlow
	Messages   core.Messages
	Contact    core.ContactForm
	// The delivery emails' links: postpone (reminders) and refusal.
	Postpone core.PostponeLinks
	Refusals core.Refusals
	// FileLinks serves the recipients' file links (GET /files/{token});
	// nil: no such route.
	FileLinks core.FileDownloads
	// Opens serves sealed messages' recipient links (GET /api/open/{token});
	// nil: not served.
	Opens          core.SealedOpens
	WebhookSecrets core.WebhookSecrets
	// Drafts keeps the authors' unsent message forms; nil: no drafts API.
	Drafts core.Drafts
	// Attachments are the authors' files of their messages
	// (/api/messages/{id}/files...); nil: no files API.
	Attachments core.Attachments
	// Payments sells plans; nil: core.PaymentsOff (not configured).
	Payments core.Payments
	// Social signs in with social providers through SocialFlow's
	// providers; a nil SocialFlow: none configured.
	Social     core.SocialSignIn
	SocialFlow core.SocialFlow
	// BounceWebhooks takes the sending providers' bounce and complaint
	// webhooks (POST /api/webhooks/ses, /api/webhooks/postmark); nil: not
	// served.
	BounceWebhooks core.BounceWebhooks
	// Scheduler tells the delivery's health for /healthz; nil: "off".
	Scheduler core.SchedulerHealth
	// Health reports whether the store answers.
	Health func(ctx context.Context) error
	// Outbox counts the outbox for /healthz; nil: not shown.
	Outbox core.OutboxCounter
	// PageViews counts the public pages' views the SPA reports
	// (POST /api/pageviews); nil: the counter is off.
	PageViews core.PageViewCounter
	// SiteCounts are the store's totals for the live statistics strip
	// (Public.Site.Stats "live"); nil: no strip.
	SiteCounts func(ctx context.Context) (SiteCounts, error)

	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the
	// client (config trusted_proxies); none: the direct peer is the client.
	TrustedProxies []netip.Prefix
	// IPv6Prefix is how many leading bits of an IPv6 client's address name
	// the client that the fair share of quick reads counts, as the limits
	// do (core.Limiter.IPv6Prefix, config limits.ipv6_prefix); 0:
	// core.DefaultIPv6Prefix.
	IPv6Prefix int
	// Public are the settings the SPA reads (its optional third-party
	// scripts); the zero value switches them all off.
	Public PublicSettings
	// Generations are the store's, when it keeps them: the encoded replies
	// of the list's pages and of messages are then reused until the
	// author's messages change. Nil: every read is read and encoded.
	Generations core.UserGenerations
	// StreamHeartbeat is how often message streams send a keep-alive;
	// zero: DefaultStreamHeartbeat.
	StreamHeartbeat time.Duration
	// Metrics counts the requests by route pattern, method and status, the
	// requests in flight and the open live lists; nil: not counted.
	Metrics core.Metrics
	// Tracer makes a span of each request (see traced); nil: none.
	Tracer core.Tracer

	httpServer *http.Server
	ln         net.Listener
	shutdown   shutdown
	gate       *fairGate
	// exporting holds the users whose zip export is being written: one
	// at a time each (GET /api/me/export?format=zip).
	exporting sync.Map
}

// Handler returns the server's complete handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.gate = newFairGate(s.IPv6Prefix)
	s.routes(mux)
	return withRequest(s.logger(), s.Metrics, s.TrustedProxies, s.secure(), true,
		traced(s.Tracer, s.TrustedProxies, s.withPublicSettingsCSP(s.crossOriginProtection().Handler(routed(mux)))))
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Open starts listening on addr (":0" picks a free port) and serves in the
// background.
func (s *Server) Open(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.Serve(ln)
	return nil
}

// Serve serves on ln in the background; Close closes it. A caller that
// must know the port before the server is set up (a base URL derived from
// ":0") listens itself.
func (s *Server) Serve(ln net.Listener) {
	s.ln = ln
	s.httpServer = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger().Handler(), slog.LevelWarn),
	}
	go func() {
		if err := s.httpServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger().Error("http server", "err", err)
		}
	}()
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the server's http://host:port.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops accepting connections and waits for in-flight requests to
// finish, up to ctx's deadline.
func (s *Server) Close(ctx context.Context) error {
	s.shutdown.close()
	if s.httpServer == nil {
		return nil
	}
	return s.httpServer.Shutdown(ctx)
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/logbuf"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/web"
	"github.com/sendlater/sendlater/web/ui"
)

func newServeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the web app, the JSON API and the admin socket",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return a.serve(ctx)
		},
	}
	cmd.Flags().String("addr", "", "address to listen on (config addr, default :8080)")
	cmd.Flags().BoolVar(&a.noScheduler, "no-scheduler", false, "do not deliver from this process (run `sendlater send-due` from cron instead)")
	a.v.BindPFlag("addr", cmd.Flags().Lookup("addr"))
	return cmd
}

// The server's log lines are written at most logDelay after the first of a
// batch, or once logBatch bytes are gathered.
const (
	logDelay = 50 * time.Millisecond
	logBatch = 32 << 10
)

// deriveListenURL completes a base URL derived from addr with the port the
// server listens on (addr ":0" picks one), and says once that it was
// derived: email links then reach this machine only.
func (a *app) deriveListenURL(ln net.Addr) {
	if !a.cfg.baseURLDerived {
		return
	}
	if _, port, _ := net.SplitHostPort(a.cfg.Addr); port == "0" {
		host, _, _ := net.SplitHostPort(a.cfg.Addr)
		_, port, _ = net.SplitHostPort(ln.String())
		a.cfg.BaseURL = deriveBaseURL(net.JoinHostPort(host, port))
	}
	a.log.Info("base_url is not set: email links use "+a.cfg.BaseURL+", derived from addr; set base_url to the address users reach",
		"base_url", a.cfg.BaseURL)
}

// serve runs until ctx ends, then lets in-flight requests finish and closes
// the store cleanly.
func (a *app) serve(ctx context.Context) error {
	wiring.ServerRuntime() // the soft memory limit and GOGC
	// The access log's lines go out in batches (internal/logbuf): a write
	// per request would cost a busy server a tenth of a quick read. A
	// warning or an error is written at once; what is left, at the end.
	lines := logbuf.New(a.stderr, logDelay, logBatch)
	defer lines.Close()
	a.logTo(lines, func(h slog.Handler) slog.Handler { return logbuf.Handler(h, lines) })
	st, key, err := a.openStore(ctx, openCreate)
	if err != nil {
		return err
	}
	defer st.Close()
	// Listen before the services are built: a base URL derived from
	// "127.0.0.1:0" needs the port the system picked.
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return fmt.Errorf("addr %s: %w", a.cfg.Addr, err)
	}
	a.deriveListenURL(ln.Addr())
	a.metrics = a.newMetrics()
	if a.tracer, err = a.newTracer(ctx); err != nil {
		ln.Close()
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := closeTracer(ctx, a.tracer); err != nil {
			a.log.Warn("tracing: sending the last spans", "err", err)
		}
	}()
	traceStore(st, a.tracer)
	s, closeServices, err := a.build(st, key)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeServices()
	if a.cfg.Mail.SMTP.Host == "" {
		a.log.Info("no mail.smtp.host configured: emails are written to the outbox", "dir", a.cfg.outboxDir())
	}
	a.logIntegrations(s)
	proxies, _ := a.cfg.trustedProxies() // validated with the config
	srv := &web.Server{
		Logger: a.log, BaseURL: a.cfg.BaseURL, AppName: a.cfg.AppName, UI: ui.FS(), Clock: core.SystemClock{},
		Identities: s.Auth, Messages: s.Messages, Contact: s.Contact,
		Postpone: s.Postpone, Refusals: s.Refusals, Opens: s.Opens, WebhookSecrets: s.WebhookSecrets, Drafts: s.Drafts,
		Payments: s.Payments, Social: s.Social, SocialFlow: s.SocialFlow,
		Health: st.Ping, Scheduler: s.Delivery.Monitor, Outbox: st, TrustedProxies: proxies,
		IPv6Prefix: a.cfg.Limits.IPv6Prefix, Public: a.cfg.publicSettings(), SiteCounts: siteCounts(st),
	}
	if a.cfg.PageViews.Enabled {
		srv.PageViews = s.PageViews
	}
	srv.BounceWebhooks = a.bounceWebhooks(s)
	if s.Attachments != nil {
		srv.Attachments, srv.FileLinks = s.Attachments, s.FileLinks
	} else {
		a.log.Info("files are off: no storage for them")
	}
	if a.metrics != nil {
		srv.Metrics = a.metrics
	}
	srv.Tracer = coreTracer(a.tracer)
	if gens, ok := st.(core.UserGenerations); ok {
		if r, ok := st.(core.GenerationServer); ok { // PostgreSQL: writers wait for this replica
			r.ServeGenerations()
		}
		srv.Generations = gens
	}
	a.logPublic()
	a.logSite()
	if !a.noScheduler {
		// An email queued by a request leaves at once, not at the next tick.
		s.Outbox.Wake = s.Scheduler.Wake
	}
	admin := &web.AdminServer{Admin: s.Admin, Messages: s.Operator.AuthorMessages(), Account: s.Operator.AuthorAccount(),
		Prices: a.cfg.prices(), Logger: a.log, PageViews: s.PageViews}
	if s.Attachments != nil {
		admin.Attachments = s.Operator.AuthorFiles()
	}
	if err := admin.Open(a.cfg.socketPath()); err != nil {
		ln.Close()
		return fmt.Errorf("admin socket: %w", err)
	}
	endpoint, err := a.openMetrics(a.metrics, st, s)
	if err != nil {
		ln.Close()
		admin.Close(context.Background())
		return err
	}
	bounces, err := a.openInbound(s)
	if err != nil {
		ln.Close()
		admin.Close(context.Background())
		endpoint.close(context.Background())
		return err
	}
	if bounces != nil {
		defer bounces.Close()
	}
	srv.Serve(ln)
	a.log.Info("serving", "addr", srv.Addr().String(), "base_url", a.cfg.BaseURL, "store", a.cfg.Store.Driver,
		"admin_socket", a.cfg.socketPath(), "process", a.processName())

	go s.Sweeper.Run(ctx, time.Hour)
	go s.Summary.Run(ctx, 24*time.Hour)

	schedulerDone := make(chan struct{})
	if !a.noScheduler {
		a.log.Info("scheduler running", "interval", a.cfg.Scheduler.Interval, "reminders", a.cfg.Scheduler.Reminders)
		go func() {
			defer close(schedulerDone)
			s.Scheduler.Run(ctx)
		}()
	} else {
		a.log.Info("scheduler off (--no-scheduler): run `sendlater send-due` from cron")
		close(schedulerDone)
	}
	lines.Flush() // the start is told at once: operators and scripts wait for "serving"

	<-ctx.Done()
	a.log.Info("shutting down: finishing in-flight requests and the delivery pass")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = srv.Close(shutdownCtx)
	select { // the pass stops between sends and records what it sent
	case <-schedulerDone:
	case <-shutdownCtx.Done():
	}
	if aerr := admin.Close(shutdownCtx); err == nil {
		err = aerr
	}
	if merr := endpoint.close(shutdownCtx); err == nil {
		err = merr
	}
	return err
}

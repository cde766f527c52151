package main

import (
	"context"
	"fmt"
	"net/mail"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
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

// defaultMemoryLimit is the server's soft memory limit unless GOMEMLIMIT is set.
const defaultMemoryLimit = 80 << 20

// serve runs until ctx ends, then lets in-flight requests finish and closes
// the store cleanly.
func (a *app) serve(ctx context.Context) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		// argon2id takes 19 MiB a sign-in: a soft limit has the collector
		// hand that back promptly after a burst. GOMEMLIMIT overrides it.
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	db, key, err := a.openStore()
	if err != nil {
		return err
	}
	defer db.Close()

	mail, emails, closeMail, err := a.mailing()
	if err != nil {
		return err
	}
	defer closeMail()
	if a.cfg.Mail.SMTP.Host == "" {
		a.log.Info("no mail.smtp.host configured: emails are written to the outbox", "dir", a.cfg.outboxDir())
	}
	clock := core.SystemClock{}
	prices := a.cfg.prices()
	auth := &core.Auth{
		Users: db, Sessions: db, AccessTokens: db, ActionCodes: db, Messages: db,
		Mailer: mail, Emails: emails, Clock: clock, Prices: prices, BaseURL: a.cfg.BaseURL,
		SigningKey: core.DeriveKey(key, core.PurposeIDTokens), Logger: a.log,
	}
	proxies, _ := a.cfg.trustedProxies() // validated with the config
	srv := &web.Server{
		TrustedProxies: proxies,
		Logger:         a.log,
		BaseURL:        a.cfg.BaseURL,
		UI:             ui.FS(),
		Clock:          clock,
		Prices:         prices,
		Users:          db,
		Auth:           auth,
		Messages: &core.MessageService{
			Messages: db, Users: db, Prices: prices, Clock: clock,
		},
		Watcher: db,
		Contact: &core.ContactService{
			Contacts: db, Mailer: mail, Emails: emails, To: contactAddress(a.cfg.Contact.To), Clock: clock, Logger: a.log,
		},
		Health: db.Ping,
	}
	delivery := a.delivery(db, mail, emails, key, clock)
	srv.AppName = a.cfg.AppName
	srv.Postpone = core.NewPostponeLinks(db, db, clock)
	srv.Refusals = delivery.Refusals
	srv.Deliveries = db
	srv.WebhookSecrets = &core.WebhookSecrets{Users: db, Store: db, Prices: prices}
	var scheduler *core.Scheduler
	if !a.noScheduler {
		scheduler = &core.Scheduler{Delivery: delivery, Interval: a.cfg.Scheduler.Interval, Heartbeat: a.heartbeat(), Logger: a.log}
		srv.Scheduler = scheduler
	}
	admin := &web.AdminServer{
		Admin:  &core.AdminService{Users: db, Messages: db, Backuper: db, Prices: prices, Clock: clock, Delivery: delivery},
		Logger: a.log,
	}
	if err := admin.Open(a.cfg.socketPath()); err != nil {
		return fmt.Errorf("admin socket: %w", err)
	}
	if err := srv.Open(a.cfg.Addr); err != nil {
		admin.Close(context.Background())
		return fmt.Errorf("addr %s: %w", a.cfg.Addr, err)
	}
	a.log.Info("serving", "addr", srv.Addr().String(), "base_url", a.cfg.BaseURL, "store", a.cfg.storePath(), "admin_socket", a.cfg.socketPath())

	sweeper := &core.Sweeper{Sessions: db, ActionCodes: db, Clock: clock, Logger: a.log}
	go sweeper.Run(ctx, time.Hour)

	schedulerDone := make(chan struct{})
	if scheduler != nil {
		a.log.Info("scheduler running", "interval", a.cfg.Scheduler.Interval, "reminders", a.cfg.Scheduler.Reminders)
		go func() {
			defer close(schedulerDone)
			scheduler.Run(ctx)
		}()
	} else {
		a.log.Info("scheduler off (--no-scheduler): run `sendlater send-due` from cron")
		close(schedulerDone)
	}

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
	return err
}

// contactAddress is where contact form submissions go (config contact.to,
// validated with the config); empty: they are only stored.
func contactAddress(to string) core.Address {
	a, err := mail.ParseAddress(to)
	if err != nil {
		return core.Address{}
	}
	return core.Address{Name: a.Name, Address: a.Address}
}

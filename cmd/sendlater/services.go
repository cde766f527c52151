package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"os"
	"sync"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/oauth"
	"github.com/sendlater/sendlater/webhook"
)

// passLogSize is how many passes the server remembers for `sendlater
// messages passes` and the health check.
const passLogSize = 100

// services is the one service graph: every service of core, built once by
// build from the config and the opened store, for serve, the admin commands
// and send-due alike.
type services struct {
	Mailer     core.Mailer
	Emails     core.Emails
	Outbox     *core.Outbox
	Auth       *core.Auth
	Social     *core.SocialAuth
	SocialFlow *oauth.Flow
	// Billing is nil while payments are off; Payments is then PaymentsOff.
	Billing        *core.BillingService
	Payments       core.Payments
	Messages       *core.MessageService
	Contact        *core.ContactService
	Postpone       *core.PostponeLinkService
	Refusals       *core.RefusalService
	WebhookSecrets *core.WebhookSecretService
	Delivery       *core.Delivery
	Admin          *core.AdminService
	// Operator is the author's services for an operator acting for a user
	// (the admin socket's author routes, tui --user): they record in the
	// audit log what the operator does and reads.
	Operator  *core.OperatorAudit
	Sweeper   *core.Sweeper
	Summary   *core.Summary
	Scheduler *core.Scheduler
	PageViews *core.PageViewService
}

// build wires the services over st; key is the store's encryption key, from
// which the ID token, refusal link and OAuth state keys are derived. release closes the
// mailer's connections.
func (a *app) build(st store, key []byte) (s *services, release func(), err error) {
	m, err := a.newMailer()
	if err != nil {
		return nil, nil, err
	}
	release = func() {
		if c, ok := m.(io.Closer); ok {
			c.Close()
		}
	}
	emails, err := mailer.NewTemplates(a.cfg.AppName, a.cfg.BaseURL)
	if err != nil {
		release()
		return nil, nil, err
	}
	clock := core.SystemClock{}
	prices := a.cfg.prices()
	s = &services{Mailer: m, Emails: emails}
	limits := &core.Limiter{Store: st, Clock: clock, Key: core.DeriveKey(key, core.PurposeLimitKeys), IPv6Prefix: a.cfg.Limits.IPv6Prefix}
	// serve wakes its scheduler through the outbox (Wake).
	s.Outbox = &core.Outbox{Store: st, Clock: clock}
	s.Auth = &core.Auth{
		Users: st, Sessions: st, AccessTokens: st, ActionCodes: st, Messages: st, Links: st,
		Outbox: s.Outbox, Emails: emails, Clock: clock, Prices: prices, BaseURL: a.cfg.BaseURL,
		SigningKey: core.DeriveKey(key, core.PurposeIDTokens), Limits: limits, Logger: a.log, Refused: st,
	}
	s.Social = &core.SocialAuth{Auth: s.Auth}
	if s.SocialFlow, err = a.socialFlow(key, clock); err != nil {
		release()
		return nil, nil, err
	}
	s.Payments = core.PaymentsOff{}
	if s.Billing = a.billingService(st, clock, prices); s.Billing != nil {
		s.Payments = s.Billing
	}
	s.Refusals = &core.RefusalService{
		Tokens: core.NewRefusalTokens(core.DeriveKey(key, core.PurposeRefusalLinks)), Store: st, Clock: clock,
	}
	s.Messages = &core.MessageService{
		Messages: st, Users: st, Prices: prices, Clock: clock, Watcher: st, Verifier: s.Auth, Limits: limits,
		Emails: emails, Outbox: s.Outbox, Refusals: s.Refusals, BaseURL: a.cfg.BaseURL, Refused: st,
	}
	s.Contact = &core.ContactService{
		Contacts: st, Outbox: s.Outbox, Emails: emails, To: parseAddress(a.cfg.Contact.To), Clock: clock,
		Limits: limits, Logger: a.log,
	}
	s.Postpone = &core.PostponeLinkService{Messages: st, Users: st, Clock: clock, Limits: limits}
	s.Auth.Refusals = s.Refusals.Tokens
	s.WebhookSecrets = &core.WebhookSecretService{Users: st, Store: st, Prices: prices}
	s.Delivery = &core.Delivery{
		Messages: st, Users: st, Store: st, Mailer: m, Emails: emails, Clock: clock,
		BaseURL:       a.cfg.BaseURL,
		Reminders:     a.cfg.reminders,
		Prices:        prices,
		Concurrency:   a.cfg.Scheduler.Concurrency,
		LeaseDuration: a.cfg.Scheduler.Lease,
		Refusals:      s.Refusals.Tokens,
		Webhooks:      webhook.NewClient(a.cfg.Webhooks.AllowPrivate, webhook.DefaultTimeout),
		Resets:        s.Auth,
		Confirmations: s.Auth,
		Logger:        a.log,
		Log:           core.NewPassLog(passLogSize),
		Monitor:       &core.PassMonitor{Store: st, Clock: clock, Process: a.processName(), Logger: a.log},
	}
	s.Admin = &core.AdminService{Users: st, Messages: st, Backuper: st, Prices: prices, Clock: clock, Delivery: s.Delivery, Billing: s.Billing,
		Auth: s.Auth, Contacts: st, Audit: st}
	s.Operator = &core.OperatorAudit{Messages: s.Messages, Account: s.Auth, Users: st, Audit: st, Clock: clock}
	s.Summary = &core.Summary{Store: st, Outbox: s.Outbox, Emails: emails, Limits: limits, Clock: clock,
		To: parseAddress(a.cfg.Operator.Email), Logger: a.log}
	s.Sweeper = &core.Sweeper{Sessions: st, ActionCodes: st, Limits: limits, Clock: clock, Logger: a.log}
	s.Scheduler = &core.Scheduler{Delivery: s.Delivery, Interval: a.cfg.Scheduler.Interval, Logger: a.log}
	s.PageViews = &core.PageViewService{Store: st, Limits: limits, Clock: clock}
	if url := a.cfg.Scheduler.HeartbeatURL; url != "" {
		s.Scheduler.Heartbeat = webhook.NewHeartbeat(url, webhook.DefaultTimeout).Beat
	}
	return s, release, nil
}

// newMailer returns the SMTP transport when a host is configured, else the
// file outbox in the data directory.
func (a *app) newMailer() (core.Mailer, error) {
	from, err := mail.ParseAddress(a.cfg.Mail.From)
	if err != nil {
		return nil, fmt.Errorf("config: mail.from: %w", err)
	}
	sender := core.Address{Name: from.Name, Address: from.Address}
	s := a.cfg.Mail.SMTP
	if s.Host == "" {
		if a.command != "serve" {
			return &lazyOutbox{dir: a.cfg.outboxDir(), from: sender, log: a.log}, nil
		}
		return mailer.NewFileTransport(a.cfg.outboxDir(), sender, a.log)
	}
	return mailer.NewSMTP(mailer.SMTPConfig{
		Host: s.Host, Port: s.Port, Username: s.Username, Password: s.Password, TLS: s.TLS,
		From: sender, Timeout: s.Timeout, PoolSize: s.PoolSize,
	})
}

// lazyOutbox is the file outbox of a command other than serve, made at its
// first email: a command that sends none (most) leaves no directory behind,
// which matters on a shared store, where the data directory need not exist.
type lazyOutbox struct {
	dir  string
	from core.Address
	log  *slog.Logger
	once sync.Once
	box  *mailer.FileTransport
	err  error
}

func (o *lazyOutbox) Send(ctx context.Context, e *core.Email) error {
	o.once.Do(func() { o.box, o.err = mailer.NewFileTransport(o.dir, o.from, o.log) })
	if o.err != nil {
		// Temporary: the email stays queued for the next pass.
		return &core.TemporaryError{Err: o.err}
	}
	return o.box.Send(ctx, e)
}

// processName names this process in the delivery health records: a server
// by host and pid, a command by host and name, so that cron's runs of
// send-due share one record.
func (a *app) processName() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	if a.command == "serve" {
		return fmt.Sprintf("%s serve %d", host, os.Getpid())
	}
	return host + " " + a.command
}

// parseAddress is an address of the config (contact.to, operator.email,
// validated with the config); empty: none.
func parseAddress(to string) core.Address {
	a, err := mail.ParseAddress(to)
	if err != nil {
		return core.Address{}
	}
	return core.Address{Name: a.Name, Address: a.Address}
}

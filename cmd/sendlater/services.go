package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"os"
	"strings"
	"sync"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/inbound"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/webhook"
)

// passLogSize is how many passes the server remembers for `sendlater
// messages passes` and the health check.
const passLogSize = 100

// services is the one service graph (internal/wiring), built by build from
// the config and the opened store, for serve, the admin commands and
// send-due alike.
type services = wiring.Graph

// build wires the services over st; key is the store's encryption key, from
// which the ID token, refusal link, limit and OAuth state keys are derived.
// release closes the mailer's connections.
func (a *app) build(st store, key []byte) (s *services, release func(), err error) {
	m, err := a.newMailer()
	if err != nil {
		return nil, nil, err
	}
	closeMailer := func() {
		if c, ok := m.(io.Closer); ok {
			c.Close()
		}
	}
	emails, err := mailer.NewTemplates(a.cfg.AppName, a.cfg.BaseURL)
	if err != nil {
		closeMailer()
		return nil, nil, err
	}
	clock := core.SystemClock{}
	prices := a.cfg.prices()
	flow, err := a.socialFlow(key, clock)
	if err != nil {
		closeMailer()
		return nil, nil, err
	}
	domains, err := a.cfg.mailDomains()
	if err != nil {
		closeMailer()
		return nil, nil, err
	}
	o := wiring.Options{
		Store: st, Mailer: m, Emails: emails, Clock: clock, Logger: a.log, MasterKey: key,
		BaseURL: a.cfg.BaseURL, AppName: a.cfg.AppName, Prices: prices, Reminders: a.cfg.reminders, IPv6Prefix: a.cfg.Limits.IPv6Prefix,
		ContactTo: parseAddress(a.cfg.Contact.To), OperatorTo: parseAddress(a.cfg.Operator.Email),
		Concurrency: a.cfg.Scheduler.Concurrency, LeaseDuration: a.cfg.Scheduler.Lease,
		Interval: a.cfg.Scheduler.Interval, PassLogSize: passLogSize, Process: a.processName(),
		Webhooks:           webhook.NewClient(a.cfg.Webhooks.AllowPrivate, webhook.DefaultTimeout),
		Billing:            a.billingService(st, clock, prices),
		SocialFlow:         flow,
		Domains:            domains,
		BounceDomain:       strings.ToLower(a.cfg.Mail.BounceDomain),
		SealedLinkValidity: a.cfg.Sealed.LinkValidFor,
	}
	if o.Blobs, err = a.blobs(st); err != nil {
		closeMailer()
		return nil, nil, err
	}
	o.AttachmentLimits, o.StaleUploads = a.cfg.attachmentLimits(), a.cfg.Attachments.StaleUploads
	o.FileLinkValidity, o.InlineMax = a.cfg.Attachments.LinkValidFor, a.cfg.Attachments.InlineMax
	if a.metrics != nil {
		o.Metrics = a.metrics
	}
	o.Tracer = coreTracer(a.tracer)
	if url := a.cfg.Scheduler.HeartbeatURL; url != "" {
		o.Heartbeat = webhook.NewHeartbeat(url, webhook.DefaultTimeout).Beat
	}
	return wiring.Build(o)
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
	dkim, err := a.cfg.dkim()
	if err != nil {
		return nil, err
	}
	var token string
	if a.cfg.Mail.Postmark.WebhookPassword != "" {
		token = inbound.PostmarkMetadataHeader // Postmark keeps it as the metadata its webhook sends back
	}
	return mailer.NewSMTP(mailer.SMTPConfig{
		Host: s.Host, Port: s.Port, Username: s.Username, Password: s.Password, TLS: s.TLS,
		From: sender, Timeout: s.Timeout, PoolSize: s.PoolSize, DKIM: dkim, TokenHeader: token,
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

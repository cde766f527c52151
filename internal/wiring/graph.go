package wiring

import (
	"log/slog"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/otpauth"
	"github.com/sendlater/sendlater/passkey"
)

// build wires the graph; o is valid and k complete.
func build(o Options, k Keys) *Graph {
	st, clock, emails := o.Store, o.Clock, o.Emails
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	passLog := o.PassLogSize
	if passLog == 0 {
		passLog = DefaultPassLogSize
	}
	g := &Graph{Mailer: o.Mailer, Emails: emails, SocialFlow: o.SocialFlow, Billing: o.Billing}
	g.Limits = &core.Limiter{Store: st, Clock: clock, Key: k.LimitKey, IPv6Prefix: o.IPv6Prefix}
	// serve wakes its scheduler through the outbox (Wake).
	g.Outbox = &core.Outbox{Store: st, Clock: clock}
	g.Auth = &core.Auth{
		Users: st, Sessions: st, AccessTokens: st, ActionCodes: st, Messages: st, Links: st,
		Outbox: g.Outbox, Emails: emails, Clock: clock, Prices: o.Prices, BaseURL: o.BaseURL,
		SigningKey: k.SigningKey, Limits: g.Limits, PasswordParams: o.PasswordParams, Logger: log, Refused: st,
		Metrics: o.Metrics, Tracer: o.Tracer,
		OTP:     otpauth.Codes{},
		Devices: st, Passkeys: st, DeviceCodes: st,
		AppName: o.AppName,
	}
	// Passkeys: the relying party of the base URL (nil when it cannot be
	// one, which the problem line says).
	if rp, problem, err := passkey.New(o.BaseURL, g.Auth.Issuer(), k.SigningKey, clock); err != nil {
		g.PasskeyProblem = err.Error()
	} else {
		g.Auth.Ceremonies, g.PasskeyProblem = rp, problem
	}
	g.Social = &core.SocialAuth{Auth: g.Auth}
	if g.Billing != nil && o.Metrics != nil {
		g.Billing.Metrics = o.Metrics
	}
	if g.Billing != nil && o.Tracer != nil {
		g.Billing.Provider = core.TracePayments(g.Billing.Provider, o.Tracer)
	}
	g.Payments = core.PaymentsOff{}
	if g.Billing != nil {
		g.Payments = g.Billing
	}
	g.Refusals = &core.RefusalService{Tokens: core.NewRefusalTokens(k.RefusalSecret), Store: st, Clock: clock}
	g.Auth.Refusals = g.Refusals.Tokens
	g.Bounces = core.NewBounceAddresses(k.BounceSecret, o.BounceDomain)
	g.Messages = &core.MessageService{
		Messages: st, Users: st, Prices: o.Prices, Clock: clock, Watcher: st, Verifier: g.Auth, Limits: g.Limits,
		Emails: emails, Outbox: g.Outbox, Refusals: g.Refusals, BaseURL: o.BaseURL, Refused: st, Metrics: o.Metrics,
		Domains: o.Domains, Tracer: o.Tracer, Bounces: g.Bounces, OpenValidity: o.SealedLinkValidity,
		FileValidity: o.FileLinkValidity,
	}
	g.Contact = &core.ContactService{
		Contacts: st, Outbox: g.Outbox, Emails: emails, To: o.ContactTo, Clock: clock, Limits: g.Limits, Logger: log,
	}
	g.Postpone = &core.PostponeLinkService{Messages: st, Users: st, Clock: clock, Limits: g.Limits, Metrics: o.Metrics, Tracer: o.Tracer}
	g.Opens = &core.SealedOpenService{Messages: st, Users: st, Clock: clock, Limits: g.Limits,
		Tokens: core.NewOpenTokens(k.OpenKey), Validity: o.SealedLinkValidity}
	g.WebhookSecrets = &core.WebhookSecretService{Users: st, Store: st, Prices: o.Prices}
	g.Drafts = &core.DraftService{Drafts: st, Messages: st, Clock: clock}
	if o.Blobs != nil {
		g.Attachments = &core.AttachmentService{Attachments: st, Messages: st, Users: st, Blobs: o.Blobs,
			Prices: o.Prices, Clock: clock, Key: k.AttachmentKey, Limits: o.AttachmentLimits, PartSize: o.AttachmentPartSize,
			Downloads: st}
		g.FileLinks = &core.FileLinkService{Attachments: st, Downloads: st, Messages: st, Files: g.Attachments,
			Clock: clock, Limits: g.Limits, Tokens: core.NewFileLinks(k.FileLinkKey), Validity: o.FileLinkValidity}
	}
	g.Delivery = &core.Delivery{
		Messages: st, Users: st, Store: st, Mailer: core.TraceMailer(o.Mailer, o.Tracer), Emails: emails, Clock: clock,
		BaseURL:       o.BaseURL,
		Reminders:     o.Reminders,
		Prices:        o.Prices,
		Concurrency:   o.Concurrency,
		LeaseDuration: o.LeaseDuration,
		Refusals:      g.Refusals.Tokens,
		Bounces:       g.Bounces,
		Opens:         g.Opens.Tokens,
		OpenValidity:  o.SealedLinkValidity,
		Webhooks:      core.TraceWebhooks(o.Webhooks, o.Tracer),
		Resets:        g.Auth,
		Confirmations: g.Auth,
		Logger:        log,
		Log:           core.NewPassLog(passLog),
		Monitor:       &core.PassMonitor{Store: st, Clock: clock, Process: o.Process, Logger: log},
		Metrics:       o.Metrics,
		Tracer:        o.Tracer,
	}
	if g.FileLinks != nil {
		g.Delivery.Files, g.Delivery.FileLinks = g.Attachments, g.FileLinks.Tokens
		g.Delivery.FileValidity, g.Delivery.InlineMax = o.FileLinkValidity, o.InlineMax
		g.Opens.Files, g.Opens.FileLinks = st, g.FileLinks.Tokens
	}
	g.BounceReports = &core.BounceService{Addresses: g.Bounces, Messages: st, Store: st, Suppressions: st, Users: st,
		Emails: emails, Outbox: g.Outbox, Clock: clock, BaseURL: o.BaseURL, Logger: log}
	g.Admin = &core.AdminService{Users: st, Messages: st, Backuper: st, Prices: o.Prices, Clock: clock,
		Delivery: g.Delivery, Billing: g.Billing, Auth: g.Auth, Contacts: st, Audit: st, Suppressions: st}
	if g.Attachments != nil {
		g.Messages.Files, g.Auth.Files, g.Admin.Files = g.Attachments, g.Attachments, g.Attachments
		g.Admin.Collector, g.Admin.StaleUploads = g.Attachments, o.StaleUploads
	}
	g.Operator = &core.OperatorAudit{Messages: g.Messages, Account: g.Auth, Users: st, Audit: st, Clock: clock}
	if g.Attachments != nil {
		g.Operator.Files = g.Attachments
	}
	g.Summary = &core.Summary{Store: st, Outbox: g.Outbox, Emails: emails, Limits: g.Limits, Clock: clock,
		To: o.OperatorTo, Logger: log}
	g.Sweeper = &core.Sweeper{Sessions: st, ActionCodes: st, DeviceCodes: st, Limits: g.Limits, Clock: clock, Logger: log}
	g.Scheduler = &core.Scheduler{Delivery: g.Delivery, Interval: o.Interval, Logger: log, Heartbeat: o.Heartbeat}
	g.PageViews = &core.PageViewService{Store: st, Limits: g.Limits, Clock: clock}
	return g
}

package main

import (
	"fmt"
	"net"

	"github.com/sendlater/sendlater/core"

	"github.com/sendlater/sendlater/inbound"
)

// openInbound listens on mail.inbound.addr and takes the bounces and
// complaints for the bounce domain's return paths there; nil when it is
// not set. The caller closes what it returns.
func (a *app) openInbound(s *services) (*inbound.Server, error) {
	in := a.cfg.Mail.Inbound
	if in.Addr == "" {
		return nil, nil
	}
	srv, err := inbound.New(inbound.Config{
		Addr: in.Addr, Addresses: s.Bounces, Processor: s.BounceReports,
		MaxSize: in.MaxSize, RatePerMinute: in.RatePerMin, Timeout: in.Timeout, Logger: a.log,
	})
	if err != nil {
		return nil, fmt.Errorf("mail.inbound.addr: %w", err)
	}
	ln, err := net.Listen("tcp", in.Addr)
	if err != nil {
		return nil, fmt.Errorf("mail.inbound.addr %s: %w", in.Addr, err)
	}
	go func() {
		if err := srv.Serve(ln); err != nil {
			a.log.Debug("inbound SMTP listener stopped", "err", err)
		}
	}()
	a.log.Info("inbound SMTP listener for bounces", "inbound_addr", ln.Addr().String(), "bounce_domain", s.Bounces.Domain)
	return srv, nil
}

// bounceWebhooks is the providers' bounce webhooks of mail.ses and
// mail.postmark; nil when neither is set.
func (a *app) bounceWebhooks(s *services) core.BounceWebhooks {
	m := a.cfg.Mail
	if len(m.SES.TopicARN) == 0 && m.Postmark.WebhookPassword == "" || s.Bounces == nil {
		return nil
	}
	a.log.Info("bounce webhooks", "ses_topics", len(m.SES.TopicARN), "postmark", m.Postmark.WebhookPassword != "")
	return &inbound.Webhooks{
		Addresses: s.Bounces, Processor: s.BounceReports, Limits: s.Limits, Clock: core.SystemClock{}, Logger: a.log,
		SES:      inbound.SESConfig{TopicARNs: m.SES.TopicARN},
		Postmark: inbound.PostmarkConfig{User: m.Postmark.WebhookUser, Password: m.Postmark.WebhookPassword},
	}
}

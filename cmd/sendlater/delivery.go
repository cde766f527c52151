package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/webhook"
)

// passLogSize is how many passes the server remembers for `sendlater
// messages passes` and the health check.
const passLogSize = 100

// newDelivery builds the delivery pass over db with a mailer of its own, for
// the commands that open the store directly; the func closes the mailer.
func (a *app) newDelivery(db *bolt.DB, key []byte, clock core.Clock) (*core.Delivery, func(), error) {
	mail, emails, closeMail, err := a.mailing()
	if err != nil {
		return nil, nil, err
	}
	return a.delivery(db, mail, emails, key, clock), closeMail, nil
}

// delivery wires the pass of DESIGN.md: the store's claims, the mailer, the
// refusal links and the webhook client, all from config.
func (a *app) delivery(db *bolt.DB, mail core.Mailer, emails core.Emails, key []byte, clock core.Clock) *core.Delivery {
	return &core.Delivery{
		Messages: db, Users: db, Store: db, Mailer: mail, Emails: emails, Clock: clock,
		BaseURL:     a.cfg.BaseURL,
		Reminders:   a.cfg.Scheduler.Reminders,
		Concurrency: a.cfg.Scheduler.Concurrency,
		Refusals:    core.NewRefusalTokens(core.DeriveKey(key, core.PurposeRefusalLinks)),
		Webhooks:    webhook.NewClient(a.cfg.Webhooks.AllowPrivate, webhook.DefaultTimeout),
		Logger:      a.log,
		Log:         core.NewPassLog(passLogSize),
	}
}

// heartbeat requests scheduler.heartbeat_url after a pass, when set.
func (a *app) heartbeat() func(ctx context.Context) error {
	if a.cfg.Scheduler.HeartbeatURL == "" {
		return nil
	}
	return webhook.NewHeartbeat(a.cfg.Scheduler.HeartbeatURL, webhook.DefaultTimeout).Beat
}

// parseWhen reads a time given on the command line: RFC 3339, a date and
// time ("2026-04-01 09:30", UTC), a date (midnight UTC), "now", or an offset
// from now ("+36h").
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now, nil
	}
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err == nil {
			return now.Add(d), nil
		}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read the time %q: use RFC 3339 (2026-04-01T09:30:00Z), \"2026-04-01 09:30\" (UTC), 2026-04-01, now or +36h", s)
}

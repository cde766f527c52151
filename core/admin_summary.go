package core

import (
	"context"
	"log/slog"
	"time"
)

// The operator's daily summary: what failed for good in the last day and
// told nobody (an author's failure notice refused, a webhook given up, an
// identity email bounced), so that nothing fails silently. It goes to the
// log every day and, when there is something to tell and an address is
// configured, to the operator by email.

// MaxSummaryItems bounds the items a summary lists.
const MaxSummaryItems = 50

// limitSummary keeps replicas from sending one summary each.
var limitSummary = Limit{"operator-summary", 1, 23 * time.Hour}

// SummaryItem is one outbox item that failed for good, as the summary
// shows it: no email, the recipient masked.
type SummaryItem struct {
	Kind      string
	MessageID string
	Owner     string // the user it was for
	Recipient string // masked (MaskEmail); "" for an author's failure notice, which went to Owner
	Error     string
	FailedAt  time.Time
}

// OperatorSummaryEmail is the daily summary.
type OperatorSummaryEmail struct {
	To      Address
	Since   time.Time
	Pending int           // outbox items waiting now
	Failed  int           // failed for good since Since
	Items   []SummaryItem // the latest of them
}

// Summary makes and sends the operator's daily summary.
type Summary struct {
	Store  DeliveryStore
	Outbox *Outbox
	Emails Emails
	Limits *Limiter
	Clock  Clock
	To     Address // empty: the log only
	Logger *slog.Logger
}

func (s *Summary) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Send summarises the last day: to the log (a warning when something
// failed) and, when something did and To is set, by email. Of several
// processes over one store, one sends a day.
func (s *Summary) Send(ctx context.Context) (*OperatorSummaryEmail, error) {
	if wait, err := s.Limits.Take(ctx, LimitTake{limitSummary, "summary"}); err != nil || wait > 0 {
		return nil, err
	}
	now := s.Clock.Now()
	d := &OperatorSummaryEmail{To: s.To, Since: now.Add(-24 * time.Hour)}
	items, err := s.Store.FailedOutbox(ctx, d.Since, 0)
	if err != nil {
		return nil, err
	}
	if d.Pending, _, err = s.Store.CountOutbox(ctx); err != nil {
		return nil, err
	}
	d.Failed = len(items)
	for _, it := range items[:min(len(items), MaxSummaryItems)] {
		si := SummaryItem{Kind: outboxKindName(it.Kind), MessageID: it.MessageID, Owner: it.Owner,
			Error: it.LastError, FailedAt: it.FailedAt}
		if it.Kind != OutboxFailureNotice {
			si.Recipient = MaskEmail(it.Recipient)
		}
		d.Items = append(d.Items, si)
	}
	if d.Failed == 0 {
		s.log().Info("daily summary: nothing failed for good in the last day", "outbox_pending", d.Pending)
		return d, nil
	}
	for _, it := range d.Items {
		s.log().Warn("daily summary: failed for good, nobody was told", "kind", it.Kind, "message", it.MessageID,
			"user", it.Owner, "to", it.Recipient, "err", it.Error, "at", it.FailedAt)
	}
	s.log().Warn("daily summary", "failed", d.Failed, "outbox_pending", d.Pending)
	if s.To.Address == "" {
		return d, nil
	}
	e, err := s.Emails.OperatorSummary(*d)
	if err != nil {
		return nil, err
	}
	return d, s.Outbox.Email(ctx, e)
}

// Run sends a summary every interval until ctx ends, the first after one
// interval.
func (s *Summary) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := s.Send(ctx); err != nil && ctx.Err() == nil {
			s.log().Error("daily summary", "err", err)
		}
	}
}

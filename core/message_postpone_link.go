package core

import (
	"context"
	"time"
)

// PostponeLinkService serves the reminder email's postpone link: no sign-in,
// the message's postpone code instead. Opening the link only shows; the
// page's button postpones. It implements PostponeLinks. Wrong codes are
// limited per client, on one message (LimitPostponeMessageClient) and on
// any (LimitPostponeClient): a guesser waits, while the right code from any
// other client still works. A client is its address, or its network for
// IPv6 (Limiter.Client). A code has 59 bits, so the limits leave a
// guesser nothing.
type PostponeLinkService struct {
	Messages MessageStore
	Users    UserStore
	Clock    Clock
	Limits   *Limiter
	// Metrics counts the postponements; nil: not counted.
	Metrics Metrics
	// Tracer makes the span of Postpone; nil: none.
	Tracer Tracer
}

var _ PostponeLinks = (*PostponeLinkService)(nil)

// PostponeView is what the postpone page shows.
type PostponeView struct {
	Title    string
	SendDate time.Time
	Interval Interval
	Status   MessageStatus
	// PostponeTo is the date the page's button would move the message to
	// now (now plus the interval, in the author's zone); BlockedUntil,
	// when that would not move the date, the instant from which it would
	// (Message.PostponeBlockedUntil), else zero.
	PostponeTo   time.Time
	BlockedUntil time.Time
}

func errInvalidPostponeCode() error {
	return Errorf(EInvalidPostponeCode, "This postpone link is not valid. Please use the link of your latest reminder email.")
}

// check refuses a client that guessed wrong too often, before any lookup.
func (p *PostponeLinkService) check(ctx context.Context, id, client string) error {
	wait, err := p.Limits.Wait(ctx, LimitPostponeClient, client)
	if err != nil {
		return err
	}
	w, err := p.Limits.Wait(ctx, LimitPostponeMessageClient, id+"\x00"+client)
	if err != nil {
		return err
	}
	if wait = max(wait, w); wait > 0 {
		return &Error{Code: ETooManyRequests, Message: "Too many attempts with a wrong code. Please try again later.", RetryAfter: wait}
	}
	return nil
}

// failed counts a wrong code (or an unknown id, which answers the same).
func (p *PostponeLinkService) failed(ctx context.Context, id, client string) error {
	if _, err := p.Limits.Record(ctx, LimitPostponeClient, client); err != nil {
		return err
	}
	if _, err := p.Limits.Record(ctx, LimitPostponeMessageClient, id+"\x00"+client); err != nil {
		return err
	}
	return errInvalidPostponeCode()
}

// Show returns what the page displays and changes nothing.
func (p *PostponeLinkService) Show(ctx context.Context, id, code, client string) (*PostponeView, error) {
	client = p.Limits.Client(client)
	if err := p.check(ctx, id, client); err != nil {
		return nil, err
	}
	m, err := p.Messages.FindMessageByID(ctx, id)
	if ErrorCode(err) == EMessageNotFound || (err == nil && !m.CheckPostponeCode(code)) {
		return nil, p.failed(ctx, id, client)
	}
	if err != nil {
		return nil, err
	}
	author, err := p.Users.FindUserByID(ctx, m.Owner)
	if err != nil {
		return nil, err
	}
	now, loc := p.Clock.Now(), author.Location()
	return &PostponeView{Title: m.Title, SendDate: m.SendDate, Interval: m.Interval, Status: m.DisplayStatus(),
		PostponeTo: m.PostponeTarget(now, loc), BlockedUntil: m.PostponeBlockedUntil(now, loc)}, nil
}

// Postpone moves the message to now + its interval in its author's zone (a
// no-op on the same day) and returns the new sendDate.
func (p *PostponeLinkService) Postpone(ctx context.Context, id, code, client string) (_ time.Time, err error) {
	ctx, span := StartChild(p.Tracer, ctx, SpanPostponeLink, SpanInternal)
	defer func() { span.End(err) }()
	span.SetString(AttrChannel, ChannelLink)
	client = p.Limits.Client(client)
	if err := p.check(ctx, id, client); err != nil {
		return time.Time{}, err
	}
	m, err := p.Messages.FindMessageByID(ctx, id)
	if ErrorCode(err) == EMessageNotFound || (err == nil && !m.CheckPostponeCode(code)) {
		return time.Time{}, p.failed(ctx, id, client)
	}
	if err != nil {
		return time.Time{}, err
	}
	author, err := p.Users.FindUserByID(ctx, m.Owner)
	if err != nil {
		return time.Time{}, err
	}
	m, err = p.Messages.UpdateMessage(ctx, id, func(m *Message) error {
		if !m.CheckPostponeCode(code) { // changed since the read
			return errInvalidPostponeCode()
		}
		if err := m.checkCanChange(); err != nil {
			return err
		}
		now := p.Clock.Now()
		if before := m.SendDate; m.Postpone(now, author.Location()) {
			m.record(now, dateMoveKind(before, m.SendDate), ActorLink, MessageEvent{Detail: m.SendDate.UTC().Format(time.RFC3339)})
		}
		return nil
	})
	if err != nil {
		return time.Time{}, err
	}
	metricsOr(p.Metrics).MessageChanged(ActionPostponed, ChannelLink)
	if err := p.Limits.Clear(ctx, LimitPostponeMessageClient, id+"\x00"+client); err != nil {
		return time.Time{}, err
	}
	return m.SendDate, nil
}

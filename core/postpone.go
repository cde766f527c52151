package core

import (
	"context"
	"time"
)

// Limits on guessing a postpone code: wrong codes per message and per client
// address within the window. A code has 59 bits, so these leave a guesser
// nothing.
const (
	PostponeFailuresPerMessage = 10
	PostponeFailuresPerClient  = 30
	PostponeFailureWindow      = time.Hour
)

// PostponeLinkService serves the reminder email's postpone link: no sign-in,
// the message's postpone code instead. Opening the link only shows; the
// page's button postpones. It implements PostponeLinks.
type PostponeLinkService struct {
	Messages MessageStore
	Users    UserStore
	Clock    Clock
	// Failures per message and per client; NewPostponeLinkService sets both.
	PerMessage *FailureLimiter
	PerClient  *FailureLimiter
}

var _ PostponeLinks = (*PostponeLinkService)(nil)

// NewPostponeLinkService returns the service with its limits of wrong codes.
func NewPostponeLinkService(messages MessageStore, users UserStore, clock Clock) *PostponeLinkService {
	return &PostponeLinkService{
		Messages: messages, Users: users, Clock: clock,
		PerMessage: NewFailureLimiter(PostponeFailuresPerMessage, PostponeFailureWindow, 100_000),
		PerClient:  NewFailureLimiter(PostponeFailuresPerClient, PostponeFailureWindow, 100_000),
	}
}

// PostponeView is what the postpone page shows.
type PostponeView struct {
	Title    string
	SendDate time.Time
	Interval Interval
	Status   MessageStatus
}

func errInvalidPostponeCode() error {
	return Errorf(EInvalidPostponeCode, "This postpone link is not valid. Please use the link of your latest reminder email.")
}

// check refuses a blocked client or message before any lookup.
func (p *PostponeLinkService) check(id, client string, now time.Time) error {
	wait := max(p.PerMessage.Blocked(id, now), p.PerClient.Blocked(client, now))
	if wait > 0 {
		return &Error{Code: ETooManyRequests, Message: "Too many attempts with a wrong code. Please try again later.", RetryAfter: wait}
	}
	return nil
}

// failed counts a wrong code (or an unknown id, which answers the same).
func (p *PostponeLinkService) failed(id, client string, now time.Time) error {
	p.PerMessage.Add(id, now)
	p.PerClient.Add(client, now)
	return errInvalidPostponeCode()
}

// Show returns what the page displays and changes nothing.
func (p *PostponeLinkService) Show(ctx context.Context, id, code, client string) (*PostponeView, error) {
	now := p.Clock.Now()
	if err := p.check(id, client, now); err != nil {
		return nil, err
	}
	m, err := p.Messages.FindMessageByID(ctx, id)
	if ErrorCode(err) == EMessageNotFound || (err == nil && !m.CheckPostponeCode(code)) {
		return nil, p.failed(id, client, now)
	}
	if err != nil {
		return nil, err
	}
	return &PostponeView{Title: m.Title, SendDate: m.SendDate, Interval: m.Interval, Status: m.DisplayStatus()}, nil
}

// Postpone moves the message to now + its interval in its author's zone (a
// no-op on the same day) and returns the new sendDate.
func (p *PostponeLinkService) Postpone(ctx context.Context, id, code, client string) (time.Time, error) {
	now := p.Clock.Now()
	if err := p.check(id, client, now); err != nil {
		return time.Time{}, err
	}
	m, err := p.Messages.FindMessageByID(ctx, id)
	if ErrorCode(err) == EMessageNotFound || (err == nil && !m.CheckPostponeCode(code)) {
		return time.Time{}, p.failed(id, client, now)
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
		m.Postpone(p.Clock.Now(), author.Location())
		return nil
	})
	if err != nil {
		return time.Time{}, err
	}
	p.PerMessage.Reset(id)
	return m.SendDate, nil
}

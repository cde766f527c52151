package core

// The author's hold: "pause all my messages until DATE" (vacation,
// hospital). Nothing of a held author is delivered or reminded; a message
// whose reminder or delivery falls in the hold gets a fresh reminder cycle
// at its end, never an immediate delivery. The pass applies it
// (delivery_send.go, delivery_remind.go); MessageService sets and ends it.

import (
	"context"
	"log/slog"
	"time"
)

// MaxHold is how far ahead a hold may end: 12 months, the longest interval.
// A hold is for an absence (a trip, a hospital stay); a longer one would
// silence messages for more than a whole cycle, and a date mistyped years
// ahead would hold them forever without anyone noticing.
const MaxHold = 366 * 24 * time.Hour

// EventHeld is a timeline entry: the author's hold moved the message's
// delivery (Detail: the new date).
const EventHeld EventKind = "held"

// HeldAt reports whether u's hold holds at now.
func (u *User) HeldAt(now time.Time) bool {
	return !u.HoldUntil.IsZero() && !now.Before(u.HoldSince) && now.Before(u.HoldUntil)
}

// holds reports whether u's hold keeps back what m was due to do at t (its
// reminder or delivery): the hold holds now, or t fell within it (a pass
// that runs only after the hold still gives those a fresh cycle). A message
// already delivered to one recipient finishes its delivery.
func (u *User) holds(m *Message, t, now time.Time) bool {
	if u.HoldUntil.IsZero() || m.anySent() {
		return false
	}
	return u.HeldAt(now) || (!t.Before(u.HoldSince) && t.Before(u.HoldUntil))
}

// holdLead is the fresh cycle's length: the first reminder's offset.
func holdLead(r Reminders) time.Duration {
	if len(r) > 0 {
		return r[0]
	}
	return ReminderLeadTime
}

// holdOver gives m a fresh reminder cycle after the hold (or now, if the
// hold is over): its sendDate moves to lead after it, never earlier than
// it was, and its reminders are due again.
func (m *Message) holdOver(u *User, now time.Time, lead time.Duration, actor string) {
	base := u.HoldUntil
	if now.After(base) {
		base = now
	}
	if to := base.Add(lead); m.SendDate.Before(to) {
		m.SendDate = to
	}
	m.RemindersSent, m.Status, m.LeaseUntil = 0, StatusScheduled, time.Time{}
	m.record(now, EventHeld, actor, MessageEvent{Detail: m.SendDate.UTC().Format(time.RFC3339)})
}

// Hold holds every message of the author until until (in the future, at
// most MaxHold away); a hold already running is moved to the new end.
func (s *MessageService) Hold(ctx context.Context, until time.Time) (*SessionUser, error) {
	if _, err := authorized(ctx, ScopeMessagesWrite); err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	if !until.After(now) || until.After(now.Add(MaxHold)) {
		return nil, ValidationError(map[string]string{"until": "The hold must end in the future, at most 12 months from now"})
	}
	return s.setHold(ctx, until.UTC())
}

// EndHold ends the author's hold now.
func (s *MessageService) EndHold(ctx context.Context) (*SessionUser, error) {
	return s.setHold(ctx, time.Time{})
}

func (s *MessageService) setHold(ctx context.Context, until time.Time) (*SessionUser, error) {
	u, err := s.author(ctx, ScopeMessagesWrite)
	if err != nil {
		return nil, err
	}
	u, err = SetHold(ctx, s.Users, s.Messages, s.Clock.Now(), u.ID, until, actorOf(ctx))
	if err != nil {
		return nil, err
	}
	page, _, err := s.Messages.ListMessages(ctx, MessageFilter{Owner: u.ID, Limit: 1})
	if err != nil {
		return nil, err
	}
	su := u.Session(s.Prices, len(page) > 0)
	su.HoldUntil = activeHold(u, s.Clock.Now())
	return &su, refusalState(ctx, s.Refused, &su)
}

// activeHold is the end of u's hold while it holds at now, else zero.
func activeHold(u *User, now time.Time) time.Time {
	if u.HeldAt(now) {
		return u.HoldUntil
	}
	return time.Time{}
}

// SetHold holds user id's messages until until, or ends the hold now when
// until is zero (the author, or an operator lifting it). The messages the
// running hold had moved (to its end plus the reminder lead) move to the
// new end (or now) plus the lead: ending early gives them their fresh
// reminder cycle from now.
func SetHold(ctx context.Context, users UserStore, messages MessageStore, now time.Time, id string, until time.Time, actor string) (*User, error) {
	var old time.Time
	u, err := users.UpdateUser(ctx, id, func(u *User) error {
		old = activeHold(u, now)
		switch {
		case until.IsZero() && old.IsZero():
		case until.IsZero():
			u.HoldUntil = now
		default:
			if old.IsZero() {
				u.HoldSince = now
			}
			u.HoldUntil = until
		}
		u.UpdatedAt = now
		return nil
	})
	if err != nil || old.IsZero() {
		return u, err
	}
	lead := ReminderLeadTime
	moved := old.Add(lead)
	list, _, err := messages.ListMessages(ctx, MessageFilter{Owner: id})
	if err != nil {
		return nil, err
	}
	for _, m := range list {
		if !m.SendDate.Equal(moved) || !m.IsActive || (m.Status != StatusScheduled && m.Status != StatusReminded) {
			continue
		}
		_, err := messages.UpdateMessage(ctx, m.ID, func(m *Message) error {
			if m.SendDate.Equal(moved) && (m.Status == StatusScheduled || m.Status == StatusReminded) && !m.anySent() {
				m.SendDate = time.Time{}
				m.holdOver(u, now, lead, actor)
			}
			return nil
		})
		if err != nil && ErrorCode(err) != EMessageNotFound {
			return nil, err
		}
	}
	return u, nil
}

// LiftHold ends the user's hold now, on an operator's word.
func (s *AdminService) LiftHold(ctx context.Context, idOrEmail string) (*User, error) {
	u, err := s.FindUser(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	until := u.HoldUntil
	if u, err = SetHold(ctx, s.Users, s.Messages, s.Clock.Now(), u.ID, time.Time{}, ActorOperator); err != nil {
		return nil, err
	}
	return u, s.audit(ctx, "users.lift-hold", u.Email, "hold until "+until.UTC().Format(time.RFC3339)+" ended")
}

// holdBack gives a claimed message of a held author back, moved to its
// fresh cycle after the hold, sending nothing.
func (d *Delivery) holdBack(claimed *Message, owns func(cur, claimed *Message) bool, author *User, now time.Time, log *slog.Logger, counts *passCounts) {
	_, err := d.settle(claimed.ID, func(m *Message) ([]*OutboxItem, error) {
		if owns(m, claimed) && m.SendDate.Equal(claimed.SendDate) {
			m.holdOver(author, now, holdLead(d.Reminders), "")
		}
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		d.passError(counts, log, err)
		return
	}
	log.Info("held by its author until " + author.HoldUntil.UTC().Format(time.RFC3339))
	counts.add(func(r *PassResult) { r.Skipped++ })
}

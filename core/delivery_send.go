package core

// The pass's first step: claiming due deliveries, sending each one, and
// recording the outcome (delivered, a retry after a temporary failure, or
// failed for good).

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// deliveryDue is the claim rule of a delivery: an active message whose
// sendDate and retry time have come, or whose previous claim expired.
func deliveryDue(m *Message, now time.Time) bool {
	if !m.IsActive {
		return false
	}
	switch m.Status {
	case StatusScheduled, StatusReminded:
		return !m.SendDate.After(now) && !m.NextAttemptAt.After(now)
	case StatusSending:
		return !m.LeaseUntil.After(now)
	}
	return false
}

func (d *Delivery) claimDeliveries(ctx context.Context, now time.Time, limit int) ([]*Message, error) {
	lease := now.Add(d.lease())
	return d.Store.ClaimDeliveries(ctx, now, limit, func(m *Message) bool {
		if !deliveryDue(m, now) {
			return false
		}
		m.Status = StatusSending
		m.LeaseUntil = lease
		d.giveMessageIDs(m)
		return true
	})
}

// giveMessageIDs gives each recipient without one the Message-ID of their
// email, kept for every retry (the first recipient's is the message's own,
// as before messages had several).
func (d *Delivery) giveMessageIDs(m *Message) {
	rs := m.RecipientList()
	for i := range rs {
		if rs[i].EmailMessageID == "" {
			rs = m.editRecipients()
			break
		}
	}
	for i := range rs {
		if rs[i].EmailMessageID == "" {
			rs[i].EmailMessageID = strings.ToLower(NewID()) + "@" + d.messageIDDomain()
		}
	}
	m.EmailMessageID = rs[0].EmailMessageID
}

func (d *Delivery) messageIDDomain() string {
	if u, err := url.Parse(d.BaseURL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "sendlater.local"
}

// waiting is the status a message goes back to when a claim is released.
func (m *Message) waiting() MessageStatus {
	if m.RemindersSent > 0 {
		return StatusReminded
	}
	return StatusScheduled
}

// ownsClaim reports whether cur is still under the claim that produced
// claimed: the same status and lease. Another pass may have taken over an
// expired lease, or an operator may have changed the message.
func ownsClaim(cur, claimed *Message) bool {
	return cur.Status == StatusSending && cur.LeaseUntil.Equal(claimed.LeaseUntil)
}

// sendRead is what a worker reads just before a send: the message as it is
// now, its author, and which of the claimed copy's recipient addresses
// refused every message.
type sendRead struct {
	cur     *Message
	author  *User
	refused map[string]bool
}

// refusedAddress tells whether address refused every message, from what was
// read with the message or, for an address added since the claim, from the
// store.
func (d *Delivery) refusedAddress(ctx context.Context, s *sendRead, address string) (bool, error) {
	if refused, ok := s.refused[address]; ok {
		return refused, nil
	}
	return d.Store.AddressRefused(ctx, address)
}

// reread reads a claimed message again just before sending, with its
// author: the author may have paused, deleted or postponed it since the
// claim. It reports false when there is nothing to send: the pass is
// stopping (the claim is given back with release), the message is gone, or
// the store failed.
func (d *Delivery) reread(ctx context.Context, m *Message, withRecipients bool, counts *passCounts, log *slog.Logger, release func(*Message, *slog.Logger)) (*sendRead, bool) {
	if ctx.Err() != nil {
		release(m, log)
		return nil, false
	}
	var addresses []string
	if withRecipients {
		for _, r := range m.RecipientList() {
			addresses = append(addresses, r.Address)
		}
	}
	cur, author, refused, err := d.Store.ReadForSend(ctx, m.ID, m.Owner, addresses)
	if ErrorCode(err) == EMessageNotFound {
		counts.add(func(r *PassResult) { r.Skipped++ })
		return nil, false
	}
	if err != nil {
		release(m, log)
		d.passError(counts, log, err)
		return nil, false
	}
	s := &sendRead{cur: cur, author: author, refused: make(map[string]bool, len(addresses))}
	for i, a := range addresses {
		s.refused[a] = refused[i]
	}
	return s, true
}

// deliver sends a claimed message to each of its recipients still waiting,
// each their own email, and records the outcomes.
func (d *Delivery) deliver(ctx context.Context, m *Message, counts *passCounts) {
	ctx, span := StartChild(d.Tracer, ctx, SpanDeliver, SpanInternal)
	defer span.End(nil)
	log := d.logger().With("message", m.ID, "kind", "delivery")
	read, ok := d.reread(ctx, m, true, counts, log, d.release)
	if !ok {
		return
	}
	cur, author := read.cur, read.author
	now := d.Clock.Now()
	if !ownsClaim(cur, m) {
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	if !cur.IsActive || cur.SendDate.After(now) || ctx.Err() != nil {
		d.release(m, log)
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	if !d.confirmClaim(ownsClaim, m, cur, now, log) {
		counts.add(func(r *PassResult) { r.Skipped++ })
		return
	}
	if author.holds(cur, cur.SendDate, now) {
		d.holdBack(m, ownsClaim, author, now, log, counts)
		return
	}
	stop := d.keepClaim(ownsClaim, m, cur)
	accepted := d.acceptances(m, now, log)
	outcomes := d.sendEach(ctx, read, now, counts, log, accepted)
	stop()
	d.settleRecipients(m, outcomes, now, log, counts, accepted)
}

func isTemporary(err error) bool {
	var t *TemporaryError
	return errors.As(err, &t)
}

func (d *Delivery) deliveryEmail(m *Message, r *Recipient, author *User, files []*Attachment, now time.Time) DeliveryEmail {
	e := DeliveryEmail{
		To:        Address{Name: r.Name, Address: r.Address},
		Author:    Address{Name: author.Name, Address: author.Email},
		Body:      m.Text(),
		WrittenAt: m.CreatedAt,
		Location:  author.Location(),
		MessageID: r.EmailMessageID,
		Date:      now,
	}
	if d.Refusals != nil {
		e.UnsubscribeLink = d.BaseURL + "/unsubscribe/" + d.Refusals.Token(r.Address)
	}
	if l, ok := m.Sealed(); ok {
		e.Sealed, e.Hint, e.OpenFor = true, l.Hint, OpenValidityWords(d.OpenValidity)
		e.OpenLink = d.BaseURL + "/open/" + (*OpenTokens)(nil).TestToken(m.ID)
		if d.Opens != nil {
			e.OpenLink = d.BaseURL + "/open/" + d.Opens.Token(m.ID, r.Address)
		}
	}
	if e.Files = d.fileList(m, r, files); e.Files != nil {
		validity := d.FileValidity
		if validity == 0 {
			validity = DefaultFileLinkValidity
		}
		e.FilesFor = OpenValidityWords(validity)
	}
	return e
}

// settle records an outcome. It does not take the pass's ctx: an outcome
// of a send that happened must be written even while the pass stops.
func (d *Delivery) settle(id string, fn func(m *Message) ([]*OutboxItem, error)) (*Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return d.Store.SettleMessage(ctx, id, fn)
}

// release gives a claim back untouched, so the next pass may take it at once.
func (d *Delivery) release(claimed *Message, log *slog.Logger) {
	_, err := d.settle(claimed.ID, func(m *Message) ([]*OutboxItem, error) {
		if ownsClaim(m, claimed) {
			m.Status, m.LeaseUntil = m.waiting(), time.Time{}
		}
		return nil, nil
	})
	if err != nil && ErrorCode(err) != EMessageNotFound {
		log.Warn("releasing a claim failed; it expires on its own", "err", err)
	}
}

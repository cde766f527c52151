package core

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// BounceKind is what a report says of an email to a recipient.
type BounceKind int

const (
	BounceSoft      BounceKind = iota + 1 // failed for now: counted
	BounceHard                            // failed for good: the recipient is bouncing
	BounceComplaint                       // marked as spam: the address is suppressed
)

// BounceReport is one recipient's part of a bounce or complaint, as a
// transport (the inbound listener, a provider's webhook) read it.
type BounceReport struct {
	// ReturnPath is the address the report was sent to: a return path of
	// BounceAddresses, which names the message and the recipient.
	ReturnPath string
	Kind       BounceKind
	Status     string // e.g. 5.1.1
	Reason     string // the remote server's words, or the feedback type
	// Source names the transport, for the log and the suppression list
	// (smtp, ses, postmark).
	Source string
}

// Events of the bounces.
const (
	// EventBounced: Recipient's address returned an email for good:
	// Detail is the remote server's reason.
	EventBounced EventKind = "bounced"
	// EventComplained: Recipient marked an email as spam; the address
	// gets nothing more from this service.
	EventComplained EventKind = "complained"
)

// maxBounceReason bounds the remote server's words kept.
const maxBounceReason = 500

// BounceService acts on bounce reports: a hard bounce marks the recipient
// bouncing (with the reason, an event of the timeline and an email to the
// author), a soft one is counted, a complaint suppresses the address.
// Reports whose return path was not made here are ignored.
type BounceService struct {
	Addresses    *BounceAddresses
	Messages     MessageStore
	Suppressions SuppressionStore
	Users        UserStore
	Emails       Emails
	// Outbox wakes the scheduler when the author's email is queued; nil:
	// it leaves with the next pass.
	Outbox  *Outbox
	Clock   Clock
	BaseURL string
	Logger  *slog.Logger
	// AuthorEvery is the least time between two emails about bounces to
	// one author: a burst of bounces sends one, the dashboard shows the
	// rest; 0: DefaultBounceAuthorEvery.
	AuthorEvery time.Duration

	mu   sync.Mutex
	told map[string]time.Time // author id -> last email
}

// DefaultBounceAuthorEvery: one email about bounces an hour per author.
const DefaultBounceAuthorEvery = time.Hour

// BounceOutcome is what Process did with a report.
type BounceOutcome string

const (
	BounceIgnored    BounceOutcome = "ignored" // not ours, or about a gone message or a replaced address
	BounceCounted    BounceOutcome = "counted"
	BounceMarked     BounceOutcome = "marked"
	BounceSuppressed BounceOutcome = "suppressed"
)

// Process acts on one report. Only a store failure is an error: whatever
// else a report says (a forged token, a message deleted since) is ignored.
func (s *BounceService) Process(ctx context.Context, r BounceReport) (BounceOutcome, error) {
	ref, ok := s.Addresses.Read(r.ReturnPath)
	if !ok || r.Kind < BounceSoft || r.Kind > BounceComplaint {
		return BounceIgnored, nil
	}
	now := s.Clock.Now()
	reason := cleanReason(r.Reason)
	if reason == "" {
		reason = "No reason given."
	}
	var address string
	var tell *OutboxItem
	// asked: the author's email was composed (or found not to go): a
	// settlement that finds the author not told within AuthorEvery then
	// leaves the message as it was and asks for it (askTell), so that the
	// message is read here only for the first bounce of an author in a
	// while, not for every one (issue 31: bursts of bounces).
	asked, askTell := r.Kind != BounceHard || s.Emails == nil, false
	outcome := BounceIgnored
	// fn reads the message in the store's transaction and says what to
	// write beside it: a mark is a small record of its own, so the
	// message's record is never rewritten for a bounce (issue 31: 500
	// DSNs a second beside deliveries).
	fn := func(m *Message) (*BounceWrite, error) {
		outcome, address, askTell = BounceIgnored, "", false
		rs := m.RecipientList()
		if ref.Recipient >= len(rs) || !s.Addresses.Names(ref, rs[ref.Recipient].Address) {
			return nil, nil // an address replaced since: its mark is gone
		}
		if !asked && !s.toldRecently(m.Owner, now) {
			askTell = true
			return nil, nil
		}
		rec := rs[ref.Recipient]
		address = rec.Address
		ev := &MessageEvent{MessageID: m.ID, At: now, Recipient: rec.Address, Detail: reason}
		switch r.Kind {
		case BounceSoft:
			outcome = BounceCounted
			return &BounceWrite{Address: address, Soft: true}, nil
		case BounceComplaint:
			ev.Kind, ev.Detail = EventComplained, "The recipient marked the "+ref.Email.String()+" as spam: nothing more is sent to this address."
			outcome = BounceSuppressed
			return &BounceWrite{Address: address, Event: ev}, nil
		}
		ev.Kind = EventBounced
		outcome = BounceMarked
		w := &BounceWrite{Address: address, Event: ev,
			Hard: &RecipientBounce{At: now, Email: ref.Email, Status: r.Status, Reason: reason}}
		if tell != nil {
			w.Outbox = []*OutboxItem{tell}
		}
		return w, nil
	}
	err := s.Messages.RecordBounce(ctx, ref.MessageID, fn)
	if err == nil && askTell {
		asked = true
		t, undo, err := s.authorEmail(ctx, ref, reason, now)
		if err != nil {
			return BounceIgnored, err
		}
		tell = t
		err = s.Messages.RecordBounce(ctx, ref.MessageID, fn)
		if (outcome != BounceMarked || err != nil) && undo != nil {
			undo() // no email went: the author's turn is not used
		}
		if err != nil && ErrorCode(err) != EMessageNotFound {
			return BounceIgnored, err
		}
	}
	if ErrorCode(err) == EMessageNotFound {
		return BounceIgnored, nil
	}
	if err != nil {
		return BounceIgnored, err
	}
	if outcome == BounceSuppressed {
		if err := s.Suppressions.Suppress(ctx, &Suppression{Address: address, At: now,
			Reason: "complaint (" + r.Source + "): " + reason}); err != nil {
			return BounceIgnored, err
		}
	}
	if outcome == BounceMarked && tell != nil && s.Outbox != nil && s.Outbox.Wake != nil {
		s.Outbox.Wake()
	}
	s.logger().Info("bounce", "source", r.Source, "kind", r.Kind, "outcome", outcome, "message", ref.MessageID)
	return outcome, nil
}

// authorEmail composes the email that tells the author of ref's message
// that the address bounced, or nil when one went to them within
// AuthorEvery (or the message is gone, or its author).
func (s *BounceService) authorEmail(ctx context.Context, ref BounceRef, reason string, now time.Time) (*OutboxItem, func(), error) {
	if s.Emails == nil {
		return nil, nil, nil
	}
	m, err := s.Messages.FindMessageByID(ctx, ref.MessageID)
	if ErrorCode(err) == EMessageNotFound {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	every := s.every()
	rs := m.RecipientList()
	if ref.Recipient >= len(rs) {
		return nil, nil, nil
	}
	// The author's turn is taken here, under the lock, so that bounces
	// arriving together send one email, not one each.
	s.mu.Lock()
	if s.told == nil {
		s.told = map[string]time.Time{}
	}
	last, recent := s.told[m.Owner]
	if recent && now.Sub(last) < every {
		s.mu.Unlock()
		return nil, nil, nil
	}
	if len(s.told) >= maxBounceAuthors {
		for id, at := range s.told { // forget who was told long enough ago
			if now.Sub(at) >= every {
				delete(s.told, id)
			}
		}
	}
	s.told[m.Owner] = now
	s.mu.Unlock()
	undo := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if recent {
			s.told[m.Owner] = last
		} else {
			delete(s.told, m.Owner)
		}
	}
	u, err := s.Users.FindUserByID(ctx, m.Owner)
	if err != nil {
		undo()
		if ErrorCode(err) == EUserNotFound {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	rec := rs[ref.Recipient]
	e, err := s.Emails.RecipientBouncing(RecipientBouncingEmail{
		To: Address{Name: u.Name, Address: u.Email}, Title: m.Title,
		Recipient: Address{Name: rec.Name, Address: rec.Address}, Email: ref.Email.String(), Reason: reason,
		SendDate: m.SendDate, Location: u.Location(), Delivered: m.Status == StatusDelivered,
		EditLink: s.BaseURL + "/dashboard?edit=" + m.ID,
	})
	if err != nil {
		undo()
		return nil, nil, err
	}
	return &OutboxItem{ID: NewID(), Kind: OutboxEmail, Owner: m.Owner, MessageID: m.ID, Recipient: u.Email, Email: e,
		NextAttemptAt: now}, undo, nil
}

// toldRecently tells whether owner was sent an email about bounces within
// AuthorEvery of now.
func (s *BounceService) toldRecently(owner string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	last, ok := s.told[owner]
	return ok && now.Sub(last) < s.every()
}

// maxBounceAuthors is how many authors the rate of emails is kept for
// before those told long enough ago are forgotten.
const maxBounceAuthors = 10_000

func (s *BounceService) every() time.Duration {
	if s.AuthorEvery == 0 {
		return DefaultBounceAuthorEvery
	}
	return s.AuthorEvery
}

func (s *BounceService) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// cleanReason keeps a remote server's words on one line, of valid UTF-8,
// at most maxBounceReason bytes.
func cleanReason(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = strings.Join(strings.Fields(s), " ")
	for len(s) > maxBounceReason {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// Suppression is an address that complained: it gets nothing more from
// this service (deliveries, notices, test emails, reminder copies), as if
// it had refused every message, until an operator removes it.
type Suppression struct {
	Address string // sealed at rest; looked up by its keyed hash
	At      time.Time
	Reason  string // sealed at rest
}

// SuppressionStore keeps the suppression list. A suppressed address is
// also refused for DeliveryStore.AddressRefused and ReadForSend, so every
// check of refusals stops mail to it.
type SuppressionStore interface {
	// Suppress adds s; an address already there keeps its first record.
	Suppress(ctx context.Context, s *Suppression) error
	// ListSuppressions lists every suppressed address, newest first.
	ListSuppressions(ctx context.Context) ([]*Suppression, error)
	// Unsuppress removes email (any case); false when it was not there.
	Unsuppress(ctx context.Context, email string) (bool, error)
}

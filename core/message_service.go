package core

import (
	"context"
	"slices"
	"time"
)

// MessageService holds the rules of SPEC.md around an author's messages:
// ownership, the plan limit, validation, sendDate arithmetic and postpone.
// It implements Messages over the stores; the author is the identity in
// ctx. Dependencies are fields, wired in cmd.
type MessageService struct {
	Messages MessageStore
	// Files removes the bytes of a deleted message's files; nil: none.
	Files  FileBytes
	Users  UserStore
	Prices PriceMap
	Clock  Clock
	// Watcher, Verifier and Limits serve Follow: the store tells of changes,
	// the identity service whether the follower's identity still holds.
	// Without them Follow answers service/unavailable.
	Watcher  MessageWatcher
	Verifier IdentityVerifier
	// Limits holds the author's places among MaxStreams live lists.
	Limits *Limiter
	// Refused tells whether the second reminder address refused every
	// email, for the session user a live list and a hold show (nil: none
	// did).
	Refused AddressRefusals
	// Recheck is how often Follow checks the identity between changes;
	// zero: DefaultFollowRecheck.
	Recheck time.Duration
	// Outage is how long Follow waits out a store that cannot be reached;
	// zero: DefaultFollowOutage.
	Outage time.Duration
	// Emails and Outbox serve Preview and SendTest: the delivery's
	// templates, and the queue the test emails leave through.
	Emails Emails
	Outbox *Outbox
	// Refusals and BaseURL make a test email's one-click refusal link and
	// keep test emails from an address that refused them; nil: no link,
	// no check.
	Refusals *RefusalService
	BaseURL  string
	// OpenValidity is how long a sealed message's open link opens after
	// delivery, as previews and tests say it (Delivery.OpenValidity);
	// zero: DefaultOpenValidity.
	OpenValidity time.Duration
	// FileValidity is how long a file's link downloads after delivery, as
	// previews and tests say it (Delivery.FileValidity); zero:
	// DefaultFileLinkValidity.
	FileValidity time.Duration
	// Tracer makes the spans of Create, Update and Postpone; nil: none.
	Tracer Tracer
	// Bounces makes the return path of a recipient's notice (VERP); nil:
	// the sender's address.
	Bounces *BounceAddresses
	// Metrics counts the messages created, edited and postponed, by
	// channel; nil: not counted.
	Metrics Metrics
	// Domains checks each recipient's domain when a message is saved (a
	// warning, never a refusal); nil: no check. DomainCheckTimeout bounds
	// the check (zero: DefaultDomainCheckTimeout).
	Domains            MailDomains
	DomainCheckTimeout time.Duration
}

var _ Messages = (*MessageService)(nil)

// author returns the user of the identity in ctx, which must have scope.
func (s *MessageService) author(ctx context.Context, scope string) (*User, error) {
	id, err := authorized(ctx, scope)
	if err != nil {
		return nil, err
	}
	return s.Users.FindUserByID(ctx, id.UserID)
}

// writer is author for a change: refused for a disabled account (only an
// operator acting for it gets this far, its own sessions having ended), so
// that its messages stay as the disable left them until it is enabled.
func (s *MessageService) writer(ctx context.Context) (*User, error) {
	u, err := s.author(ctx, ScopeMessagesWrite)
	if err == nil && u.Disabled() {
		return nil, errUserDisabled()
	}
	return u, err
}

// List returns a page of the author's messages, newest first.
func (s *MessageService) List(ctx context.Context, p Page) (*MessagePage, error) {
	id, err := authorized(ctx, ScopeMessagesRead)
	if err != nil {
		return nil, err
	}
	f, limit, err := p.filter(id.UserID)
	if err != nil {
		return nil, err
	}
	ms, _, err := s.Messages.ListMessages(ctx, f)
	if err != nil {
		return nil, err
	}
	page := &MessagePage{Messages: ms}
	if len(ms) > limit {
		page.Messages = ms[:limit]
		page.NextCursor = cursorOf(ms[limit-1])
	}
	if len(page.Messages) > 0 {
		u, err := s.author(ctx, ScopeMessagesRead)
		if err != nil {
			return nil, err
		}
		s.forAuthor(u, page.Messages...)
		if err := JoinBounceMarks(ctx, s.Messages, page.Messages...); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// Get returns the author's message; another user's message is not found.
func (s *MessageService) Get(ctx context.Context, id string) (*Message, error) {
	who, err := authorized(ctx, ScopeMessagesRead)
	if err != nil {
		return nil, err
	}
	m, err := s.Messages.FindMessageByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.Owner != who.UserID {
		return nil, ErrMessageNotFound()
	}
	u, err := s.author(ctx, ScopeMessagesRead)
	if err != nil {
		return nil, err
	}
	if err := JoinBounceMarks(ctx, s.Messages, m); err != nil {
		return nil, err
	}
	return s.forAuthor(u, m)[0], nil
}

// forAuthor sets on each of ms what its author's front ends show of a
// postpone now (Message.NoPostponeUntil), in u's zone; it returns ms.
func (s *MessageService) forAuthor(u *User, ms ...*Message) []*Message {
	now, loc := s.Clock.Now(), u.Location()
	for _, m := range ms {
		m.NoPostponeUntil = m.PostponeBlockedUntil(now, loc)
	}
	return ms
}

// Create validates and stores a new message. The plan limit is checked inside
// the store's write transaction, so concurrent requests cannot exceed it.
func (s *MessageService) Create(ctx context.Context, in MessageInput) (_ *Message, err error) {
	ctx, span := StartChild(s.Tracer, ctx, SpanCreateMessage, SpanInternal)
	defer func() { span.End(err) }()
	span.SetString(AttrChannel, ChannelOf(ctx))
	span.SetInt(AttrRecipients, len(in.list()))
	if _, err := authorized(ctx, ScopeMessagesWrite); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	u, err := s.writer(ctx)
	if err != nil {
		return nil, err
	}
	if in.WebhookURL != "" {
		if err := s.Prices.requireBusiness(u); err != nil {
			return nil, err
		}
	}
	if in.Sealed != nil {
		if err := s.Prices.requireSealing(u); err != nil {
			return nil, err
		}
	}
	if err := s.Prices.checkRecipientLimit(u, len(in.list())); err != nil {
		return nil, err
	}
	m := NewMessage(u.ID, in, s.Clock.Now(), u.Location())
	m.record(m.CreatedAt, EventCreated, actorOf(ctx), MessageEvent{})
	if m.IdempotencyKey != "" {
		// A retry: the message the first request made.
		prev, err := s.Messages.FindMessageByIdempotencyKey(ctx, u.ID, m.IdempotencyKey)
		if ErrorCode(err) != EMessageNotFound {
			return s.retried(u, prev, in, err)
		}
	}
	err = s.Messages.CreateMessage(ctx, m, func(u *User, hasMessages bool) error {
		if plan, active := s.Prices.PlanOf(u); !MayAddMessage(plan, active, hasMessages) {
			return Errorf(EPlanLimit, "Upgrade your plan to add more messages.")
		}
		return nil
	})
	if ErrorCode(err) == EIdempotencyKeyUsed {
		// A retry made it meanwhile.
		prev, err := s.Messages.FindMessageByIdempotencyKey(ctx, u.ID, m.IdempotencyKey)
		return s.retried(u, prev, in, err)
	}
	if ErrorCode(err) == EOutcomeUnknown {
		return nil, errCreateUnconfirmed(err, in.IdempotencyKey != "")
	}
	if err != nil {
		return nil, err
	}
	metricsOr(s.Metrics).MessageChanged(ActionCreated, ChannelOf(ctx))
	m.Warnings = s.domainWarnings(ctx, m.RecipientList())
	return s.forAuthor(u, m)[0], nil
}

// retried is sameRequest's answer, as the author reads it (forAuthor).
func (s *MessageService) retried(u *User, prev *Message, in MessageInput, err error) (*Message, error) {
	m, err := sameRequest(prev, in, err)
	if err != nil {
		return nil, err
	}
	m.Warnings = s.domainWarnings(context.Background(), m.RecipientList())
	return s.forAuthor(u, m)[0], nil
}

// errCreateUnconfirmed words EOutcomeUnknown (the store lost the database
// after the COMMIT left) for a create: with an Idempotency-Key, a retry
// answers with the message if it was stored and makes it if not (the key's
// unique index stops a second one even while the first transaction is
// still finishing); without one, only the list tells.
func errCreateUnconfirmed(err error, keyed bool) error {
	e, _ := AsError(err)
	msg := "We could not confirm that the message was saved. Reload to check before you try again, or it may be made twice."
	if keyed {
		msg = "We could not confirm that the message was saved. Try again: with the same Idempotency-Key it will not be made twice. Or reload to check."
	}
	return &Error{Code: EOutcomeUnknown, Message: msg, RetryAfter: e.RetryAfter}
}

// sameRequest returns prev, the message made with an Idempotency-Key, for a
// request with the same key, unless the request asked for another message.
func sameRequest(prev *Message, in MessageInput, err error) (*Message, error) {
	if err != nil {
		return nil, err
	}
	iv := in.Interval
	if iv == "" {
		iv = DefaultInterval
	}
	if prev.Title != in.Title || !slices.Equal(recipientInputs(prev.RecipientList()), recipientInputs(newRecipients(in.list()))) ||
		prev.Body != in.storedBody() || prev.Interval != iv || prev.WebhookURL != in.WebhookURL {
		return nil, Errorf(EConflict, "This Idempotency-Key was used for another message; use a new key for a new message.")
	}
	return prev, nil
}

// Update applies a partial edit to the author's message.
func (s *MessageService) Update(ctx context.Context, id string, up MessageUpdate) (_ *Message, err error) {
	ctx, span := StartChild(s.Tracer, ctx, SpanEditMessage, SpanInternal)
	defer func() { span.End(err) }()
	span.SetString(AttrChannel, ChannelOf(ctx))
	if _, err := authorized(ctx, ScopeMessagesWrite); err != nil {
		return nil, err
	}
	if err := up.Validate(); err != nil {
		return nil, err
	}
	u, err := s.writer(ctx)
	if err != nil {
		return nil, err
	}
	if up.WebhookURL != nil && *up.WebhookURL != "" {
		if err := s.Prices.requireBusiness(u); err != nil {
			return nil, err
		}
	}
	files, err := s.sealSwitchFiles(ctx, id, up)
	if err != nil {
		return nil, err
	}
	m, err := s.update(ctx, u.ID, id, func(m *Message) error {
		if err := checkSealSwitch(m, up, files); err != nil {
			return err
		}
		if up.Sealed != nil && !m.IsSealed() {
			// A new seal is the plan's; a re-seal keeps what was sealed.
			if err := s.Prices.requireSealing(u); err != nil {
				return err
			}
		}
		if up.Recipients != nil && len(*up.Recipients) > len(m.RecipientList()) {
			// A list longer than the plan allows may stay as it was made
			// (a plan that ended), but may not grow.
			if err := s.Prices.checkRecipientLimit(u, len(*up.Recipients)); err != nil {
				return err
			}
		}
		before := *m
		now := s.Clock.Now()
		m.Apply(up, now, u.Location())
		recordEdit(&before, m, up, now, actorOf(ctx))
		return nil
	})
	if err != nil {
		return nil, err
	}
	metricsOr(s.Metrics).MessageChanged(ActionEdited, ChannelOf(ctx))
	if err := JoinBounceMarks(ctx, s.Messages, m); err != nil {
		return nil, err
	}
	m.Warnings = s.domainWarnings(ctx, m.RecipientList())
	return s.forAuthor(u, m)[0], nil
}

// Postpone moves the author's message to now + its interval (a no-op on the
// same day).
func (s *MessageService) Postpone(ctx context.Context, id string) (_ *Message, err error) {
	ctx, span := StartChild(s.Tracer, ctx, SpanPostponeMessage, SpanInternal)
	defer func() { span.End(err) }()
	span.SetString(AttrChannel, ChannelOf(ctx))
	u, err := s.writer(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.update(ctx, u.ID, id, func(m *Message) error {
		now := s.Clock.Now()
		if before := m.SendDate; m.Postpone(now, u.Location()) {
			m.record(now, dateMoveKind(before, m.SendDate), actorOf(ctx), MessageEvent{Detail: m.SendDate.UTC().Format(time.RFC3339)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	metricsOr(s.Metrics).MessageChanged(ActionPostponed, ChannelOf(ctx))
	if err := JoinBounceMarks(ctx, s.Messages, m); err != nil {
		return nil, err
	}
	return s.forAuthor(u, m)[0], nil
}

// Delete deletes the author's message.
func (s *MessageService) Delete(ctx context.Context, id string) error {
	if _, err := authorized(ctx, ScopeMessagesWrite); err != nil {
		return err
	}
	if _, err := s.Get(ctx, id); err != nil {
		return err
	}
	return deleting(ctx, s.Files, id, "", func() error { return s.Messages.DeleteMessage(ctx, id) })
}

// update edits the owner's message in one store transaction.
func (s *MessageService) update(ctx context.Context, owner, id string, fn func(m *Message) error) (*Message, error) {
	return s.Messages.UpdateMessage(ctx, id, func(m *Message) error {
		if m.Owner != owner {
			return ErrMessageNotFound()
		}
		if err := m.checkCanChange(); err != nil {
			return err
		}
		return fn(m)
	})
}

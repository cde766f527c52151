package core

import (
	"context"
	"time"
)

// EventKind is what happened to a message, as its timeline shows it.
type EventKind string

const (
	EventCreated   EventKind = "created"
	EventEdited    EventKind = "edited"
	EventPostponed EventKind = "postponed" // Detail: the new delivery date, later
	// EventRescheduled: the delivery date moved earlier (an operator's
	// reschedule, a shorter interval, deliver-now). Detail: the new date.
	EventRescheduled EventKind = "rescheduled"
	EventPaused      EventKind = "paused"
	EventResumed     EventKind = "resumed"
	EventReminded    EventKind = "reminded" // the author was reminded
	EventSent        EventKind = "sent"     // to Recipient
	EventRetrying    EventKind = "retrying" // Recipient's email failed for now: Detail, NextAttemptAt
	EventFailed      EventKind = "failed"   // Recipient's email failed for good: Detail
	EventRefused     EventKind = "refused"  // Recipient refused every message
	EventWebhook     EventKind = "webhook"  // a business webhook call: Detail says how it went
	// EventReminderFailed: the author's reminder refused for good, or
	// refused for now and retried from NextAttemptAt (once for a run of
	// such failures: toldRetrying), or its copy to the second reminder
	// address (Recipient) refused, or queued for a retry at NextAttemptAt,
	// or failed for good on one: Detail says which and why.
	EventReminderFailed EventKind = "reminder-failed"
)

// Actors of events that someone did; an event of the delivery itself has
// none.
const (
	ActorDashboard = "author (web app)"
	ActorToken     = "author (access token: TUI or script)"
	ActorLink      = "postpone link"
	ActorOperator  = "operator"
)

// MessageEvent is one entry of a message's delivery timeline: append-only,
// written in the same transaction as the change it tells of, deleted with
// the message.
type MessageEvent struct {
	MessageID     string
	At            time.Time
	Kind          EventKind
	Actor         string
	Recipient     string // the address an outcome is about; sealed at rest
	Detail        string // a date, the mail server's reply; sealed at rest
	NextAttemptAt time.Time
}

// MessageEventStore reads a message's timeline, oldest first. Events are
// written with the message: a write of a message appends its
// Message.Events (and clears them).
type MessageEventStore interface {
	ListMessageEvents(ctx context.Context, messageID string) ([]*MessageEvent, error)
}

// record adds an event to be written with the message's next write.
func (m *Message) record(now time.Time, kind EventKind, actor string, e MessageEvent) {
	e.MessageID, e.At, e.Kind, e.Actor = m.ID, now, kind, actor
	m.Events = append(m.Events, e)
}

// actorOf names who acts in ctx, as the timeline shows it.
func actorOf(ctx context.Context) string {
	id := IdentityFrom(ctx)
	switch {
	case id == nil:
		return ""
	case id.Operator != "":
		// The author's timeline says an operator acted; who is in the
		// operators' audit log, not in a reply to the author.
		return ActorOperator
	case id.TokenID != "":
		return ActorToken
	}
	return ActorDashboard
}

// Events returns the timeline of the author's message, oldest first.
func (s *MessageService) Events(ctx context.Context, id string) ([]*MessageEvent, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	return s.Messages.ListMessageEvents(ctx, id)
}

// recordEdit adds the events of an edit: a pause or a resume, a new
// delivery date, and the edit of its contents.
func recordEdit(before, after *Message, up MessageUpdate, now time.Time, actor string) {
	if before.IsActive != after.IsActive {
		kind := EventResumed
		if !after.IsActive {
			kind = EventPaused
		}
		after.record(now, kind, actor, MessageEvent{})
	}
	if !before.SendDate.Equal(after.SendDate) {
		after.record(now, dateMoveKind(before.SendDate, after.SendDate), actor, MessageEvent{Detail: after.SendDate.UTC().Format(time.RFC3339)})
	}
	if up.Title != nil || up.Name != nil || up.Recipient != nil || up.Body != nil || up.Sealed != nil || up.Recipients != nil || up.WebhookURL != nil {
		after.record(now, EventEdited, actor, MessageEvent{})
	}
}

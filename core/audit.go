package core

import (
	"context"
	"time"
)

// AuditEntry is one thing an operator did: a change made or a secret read
// (a message body revealed, an account exported). Actor is the operator as
// the system knows them: on the admin socket the OS user of the peer
// process (SO_PEERCRED), for a command that opened the store itself the OS
// user running it.
type AuditEntry struct {
	ID     string
	At     time.Time
	Actor  string
	Action string // e.g. "users.disable", "messages.reveal"
	Target string // the user's email or the message's id; "" for all
	Detail string // what changed, in a few words
}

// AuditStore keeps the audit log. Entries are never changed or deleted.
type AuditStore interface {
	AppendAudit(ctx context.Context, e *AuditEntry) error
	// ListAudit returns the entries at or after since, oldest first, at
	// most limit of them (0: all).
	ListAudit(ctx context.Context, since time.Time, limit int) ([]*AuditEntry, error)
}

type actorKey struct{}

// WithActor returns ctx naming the operator who acts (the audit log's who).
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorFrom returns the operator named in ctx, "unknown" when none is.
func ActorFrom(ctx context.Context) string {
	if a, _ := ctx.Value(actorKey{}).(string); a != "" {
		return a
	}
	return "unknown"
}

// audit records what the operator in ctx did. The change it records is
// already made: a failure to record it is returned so that the operator
// hears of it.
func (s *AdminService) audit(ctx context.Context, action, target, detail string) error {
	if s.Audit == nil {
		return Errorf(EUnavailable, "The audit log is not configured in this process.")
	}
	err := s.Audit.AppendAudit(ctx, &AuditEntry{ID: NewID(), At: s.Clock.Now(), Actor: ActorFrom(ctx),
		Action: action, Target: target, Detail: detail})
	if err != nil {
		return Errorf(EInternal, "Done, but writing the audit log failed: %v", err)
	}
	return nil
}

// ListAudit lists the audit log from since, oldest first.
func (s *AdminService) ListAudit(ctx context.Context, since time.Time, limit int) ([]*AuditEntry, error) {
	if s.Audit == nil {
		return nil, Errorf(EUnavailable, "The audit log is not configured in this process.")
	}
	return s.Audit.ListAudit(ctx, since, limit)
}

// RecordReveal writes to the audit log that the operator in ctx read the
// bodies of the messages ids (messages show|list --reveal).
func (s *AdminService) RecordReveal(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if err := s.audit(ctx, "messages.reveal", id, "read the message body"); err != nil {
			return err
		}
	}
	return nil
}

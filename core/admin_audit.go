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

type operatorKey struct{}

// WithOperator returns ctx naming the operator who acts, as the audit log
// records them: the OS user of the admin socket's peer process
// (SO_PEERCRED), or the OS user running a command that opened the store
// itself ("alice (uid 1000)"). It is the one way to say that an operator
// acts; ActAs derives from it the identity of an operator acting for a user.
func WithOperator(ctx context.Context, operator string) context.Context {
	return context.WithValue(ctx, operatorKey{}, operator)
}

// OperatorFrom returns the operator who acts in ctx: the one an identity
// acting for a user names, else the one WithOperator named; "unknown" when
// none is.
func OperatorFrom(ctx context.Context) string {
	if id := IdentityFrom(ctx); id != nil && id.Operator != "" {
		return id.Operator
	}
	if a, _ := ctx.Value(operatorKey{}).(string); a != "" {
		return a
	}
	return "unknown"
}

// ActAs returns ctx carrying the identity of the operator in ctx
// (OperatorFrom) acting for the user userID: the author's services then act
// for that user, and OperatorAudit records what the operator did.
func ActAs(ctx context.Context, userID string) context.Context {
	return WithIdentity(ctx, &Identity{UserID: userID, Operator: OperatorFrom(ctx)})
}

// audit records what the operator in ctx did. The change it records is
// already made: a failure to record it is returned so that the operator
// hears of it.
func (s *AdminService) audit(ctx context.Context, action, target, detail string) error {
	if s.Audit == nil {
		return Errorf(EUnavailable, "The audit log is not configured in this process.")
	}
	err := s.Audit.AppendAudit(ctx, &AuditEntry{ID: NewID(), At: s.Clock.Now(), Actor: OperatorFrom(ctx),
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

// RevealMessages returns the messages ids with their bodies (messages
// show|list --reveal), after recording in the audit log that the operator
// in ctx read each: a body the log does not show as read is never returned.
func (s *AdminService) RevealMessages(ctx context.Context, ids []string) ([]*Message, error) {
	ms := make([]*Message, 0, len(ids))
	for _, id := range ids {
		m, err := s.Messages.FindMessageByID(ctx, id)
		if err != nil {
			return nil, err
		}
		if m.IsSealed() {
			// Sealed: nothing here opens it, and the envelope (which
			// could be guessed at offline) is not the operator's.
			if err := s.audit(ctx, "messages.reveal", id, "asked for the body of a sealed message: not revealed"); err != nil {
				return nil, err
			}
			ms = append(ms, withoutBody(m))
			continue
		}
		if err := s.audit(ctx, "messages.reveal", id, "read the message body"); err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// withoutBody returns a copy of m without its body: what an operator reads
// of a message unless they reveal it (RevealMessages). A sealed message
// stays marked sealed, without its envelope and hint.
func withoutBody(m *Message) *Message {
	c := *m
	c.Body = ""
	if m.IsSealed() {
		c.SetSealed(SealedLetter{})
	}
	return &c
}

// bodyless is withoutBody of a message read, passing the error on.
func bodyless(m *Message, err error) (*Message, error) {
	if err != nil {
		return nil, err
	}
	return withoutBody(m), nil
}

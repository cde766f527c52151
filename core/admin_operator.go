package core

import (
	"context"
	"fmt"
	"time"
)

// OperatorAudit is the author's services as an operator uses them, acting
// for a user (ActAs): through the admin socket's author routes and through
// `sendlater tui --user` on the store, on either backend. Every change the
// operator makes is recorded in the audit log after it is made, and every
// read that shows message bodies before the bodies are returned (a read the
// log cannot record returns nothing). A context without an operator passes
// through unrecorded: the author acts.
type OperatorAudit struct {
	Messages Messages
	Account  Account
	// Files are the author's files (AuthorFiles); nil: none.
	Files Attachments
	Users UserStore // names the user in the entries
	Audit AuditStore
	Clock Clock
}

// AuthorMessages and AuthorAccount are the services that record.
func (o *OperatorAudit) AuthorMessages() Messages { return operatorMessages{o} }
func (o *OperatorAudit) AuthorAccount() Account   { return operatorAccount{o} }

// record writes an entry of what the operator acting in ctx did for its
// user; with no operator in ctx it records nothing.
func (o *OperatorAudit) record(ctx context.Context, action, target, detail string) error {
	id := IdentityFrom(ctx)
	if id == nil || id.Operator == "" {
		return nil
	}
	who := id.UserID
	if u, err := o.Users.FindUserByID(ctx, id.UserID); err == nil {
		who = u.Email
	}
	if target == "" {
		target = who
	} else {
		detail = joinDetail(detail, "for "+who)
	}
	if o.Audit == nil {
		return Errorf(EUnavailable, "The audit log is not configured in this process.")
	}
	err := o.Audit.AppendAudit(ctx, &AuditEntry{ID: NewID(), At: o.Clock.Now(), Actor: id.Operator,
		Action: action, Target: target, Detail: detail})
	if err != nil {
		return Errorf(EInternal, "Writing the audit log failed: %v", err)
	}
	return nil
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

// done records a change once it is made: its error is the change's, else
// the record's.
func done[T any](o *OperatorAudit, ctx context.Context, v T, err error, action string, target func(T) string, detail string) (T, error) {
	if err != nil {
		return v, err
	}
	return v, o.record(ctx, action, target(v), detail)
}

// reveal records a read of bodies before it is returned.
func reveal[T any](o *OperatorAudit, ctx context.Context, v T, err error, target, detail string) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if err := o.record(ctx, "messages.reveal", target, detail); err != nil {
		return zero, err
	}
	return v, nil
}

func messageID(m *Message) string { return m.ID }

// operatorMessages records what an operator does with the author's messages.
type operatorMessages struct{ o *OperatorAudit }

var _ Messages = operatorMessages{}

func (m operatorMessages) List(ctx context.Context, p Page) (*MessagePage, error) {
	page, err := m.o.Messages.List(ctx, p)
	n := 0
	if page != nil {
		n = len(page.Messages)
	}
	return reveal(m.o, ctx, page, err, "", fmt.Sprintf("read a page of the list (%d messages)", n))
}

func (m operatorMessages) Get(ctx context.Context, id string) (*Message, error) {
	msg, err := m.o.Messages.Get(ctx, id)
	return reveal(m.o, ctx, msg, err, id, "read the message body")
}

func (m operatorMessages) Create(ctx context.Context, in MessageInput) (*Message, error) {
	msg, err := m.o.Messages.Create(ctx, in)
	return done(m.o, ctx, msg, err, "messages.create", messageID, "created")
}

func (m operatorMessages) Update(ctx context.Context, id string, up MessageUpdate) (*Message, error) {
	msg, err := m.o.Messages.Update(ctx, id, up)
	return done(m.o, ctx, msg, err, "messages.update", messageID, "edited")
}

func (m operatorMessages) Postpone(ctx context.Context, id string) (*Message, error) {
	msg, err := m.o.Messages.Postpone(ctx, id)
	return done(m.o, ctx, msg, err, "messages.postpone", messageID, "postponed as the author")
}

func (m operatorMessages) Delete(ctx context.Context, id string) error {
	_, err := done(m.o, ctx, id, m.o.Messages.Delete(ctx, id), "messages.delete", func(id string) string { return id }, "deleted as the author")
	return err
}

// Events are the timeline: no bodies.
func (m operatorMessages) Events(ctx context.Context, id string) ([]*MessageEvent, error) {
	return m.o.Messages.Events(ctx, id)
}

// Preview renders what the operator wrote: nothing stored is read.
func (m operatorMessages) Preview(ctx context.Context, in MessageInput) ([]EmailPreview, error) {
	return m.o.Messages.Preview(ctx, in)
}

func (m operatorMessages) PreviewMessage(ctx context.Context, id string, up MessageUpdate) ([]EmailPreview, error) {
	ps, err := m.o.Messages.PreviewMessage(ctx, id, up)
	return reveal(m.o, ctx, ps, err, id, "read the message body (preview)")
}

func (m operatorMessages) SendTest(ctx context.Context, id string) (int, error) {
	n, err := m.o.Messages.SendTest(ctx, id)
	return done(m.o, ctx, n, err, "messages.send-test", func(int) string { return id }, "sent a test to the author")
}

func (m operatorMessages) NotifyRecipient(ctx context.Context, id, address string) error {
	_, err := done(m.o, ctx, 0, m.o.Messages.NotifyRecipient(ctx, id, address), "messages.notify-recipient",
		func(int) string { return id }, "told a recipient that a message waits for them")
	return err
}

func (m operatorMessages) Hold(ctx context.Context, until time.Time) (*SessionUser, error) {
	u, err := m.o.Messages.Hold(ctx, until)
	return done(m.o, ctx, u, err, "users.hold", noTarget, "held until "+until.UTC().Format(time.RFC3339))
}

func (m operatorMessages) EndHold(ctx context.Context) (*SessionUser, error) {
	u, err := m.o.Messages.EndHold(ctx)
	return done(m.o, ctx, u, err, "users.end-hold", noTarget, "ended the hold as the author")
}

// Follow is a live list of bodies: one entry when it opens.
func (m operatorMessages) Follow(ctx context.Context) (<-chan MessageList, error) {
	ch, err := m.o.Messages.Follow(ctx)
	return reveal(m.o, ctx, ch, err, "", "opened the live list")
}

func noTarget[T any](T) string { return "" }

// operatorAccount records what an operator does with the author's account.
type operatorAccount struct{ o *OperatorAudit }

var _ Account = operatorAccount{}

func (a operatorAccount) Me(ctx context.Context) (*SessionUser, error) { return a.o.Account.Me(ctx) }

func (a operatorAccount) UpdateProfile(ctx context.Context, up ProfileUpdate) (*SessionUser, error) {
	u, err := a.o.Account.UpdateProfile(ctx, up)
	return done(a.o, ctx, u, err, "users.profile", noTarget, "changed the settings as the author")
}

func (a operatorAccount) SignOut(ctx context.Context) error {
	_, err := done(a.o, ctx, struct{}{}, a.o.Account.SignOut(ctx), "users.sign-out", noTarget, "signed out as the author")
	return err
}

func (a operatorAccount) CreateAccessToken(ctx context.Context, name string, scopes []string) (AccessTokenInfo, string, error) {
	info, secret, err := a.o.Account.CreateAccessToken(ctx, name, scopes)
	if err != nil {
		return info, secret, err
	}
	return info, secret, a.o.record(ctx, "users.token-create", "", "made the access token "+info.Name)
}

func (a operatorAccount) ListAccessTokens(ctx context.Context) ([]AccessTokenInfo, error) {
	return a.o.Account.ListAccessTokens(ctx)
}

func (a operatorAccount) RevokeAccessToken(ctx context.Context, id string) error {
	_, err := done(a.o, ctx, id, a.o.Account.RevokeAccessToken(ctx, id), "users.token-revoke", noTarget, "revoked an access token")
	return err
}

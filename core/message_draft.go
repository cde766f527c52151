package core

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DraftNew is the key of the draft of a message not yet created; every
// other key is the id of the author's message the draft edits.
const DraftNew = "new"

// Draft is a message dialog's unsent form, kept on the server for its
// author: one per author and message (or DraftNew), so that a closed tab or
// an ended session loses nothing. It is not checked as a message is (a
// draft may lack a title or a recipient) but is bounded like one, and its
// contents are sealed at rest like a message's.
type Draft struct {
	Owner      string
	Key        string
	Title      string
	Recipients []DraftRecipient
	Body       string
	Interval   Interval // "" or a valid interval
	UpdatedAt  time.Time
}

// DraftRecipient is one row of a draft's recipients, as typed.
type DraftRecipient struct {
	Name    string
	Address string
}

// DraftStore keeps drafts. DeleteMessage deletes the message's draft and
// DeleteUser every draft of the user, in their transactions.
type DraftStore interface {
	// PutDraft creates or replaces the draft of d.Owner and d.Key.
	PutDraft(ctx context.Context, d *Draft) error
	// Draft returns the draft of owner and key, EDraftNotFound when none.
	Draft(ctx context.Context, owner, key string) (*Draft, error)
	// DeleteDraft deletes the draft of owner and key; none is no error.
	DeleteDraft(ctx context.Context, owner, key string) error
}

// Validate checks what a draft may hold: the limits of a message's fields
// (a title of one line and MaxTitleLen characters, at most MaxRecipients
// rows of bounded names and addresses, a body of MaxBodyBytes), nothing of
// what a message must have.
func (d *Draft) Validate() error {
	f := map[string]string{}
	if d.Title != "" {
		if p := lineProblem(d.Title, "The title", MaxTitleLen); p != "" {
			f["title"] = p
		}
	}
	if len(d.Recipients) > MaxRecipients {
		f["recipients"] = fmt.Sprintf("A draft may have at most %d recipients", MaxRecipients)
	}
	for i, r := range d.Recipients {
		if i >= MaxRecipients {
			break
		}
		if p := lineProblem(r.Name, "The recipient name", MaxNameLen); p != "" {
			f[fmt.Sprintf("recipients[%d].name", i)] = p
		}
		if p := lineProblem(r.Address, "The recipient email address", MaxEmailLen); p != "" {
			f[fmt.Sprintf("recipients[%d].recipient", i)] = p
		}
	}
	switch {
	case len(d.Body) > MaxBodyBytes:
		f["message"] = "The message must be at most 100 KB"
	case bodyProblem(d.Body, "The message") != "":
		f["message"] = bodyProblem(d.Body, "The message")
	}
	if d.Interval != "" && !d.Interval.Valid() {
		f["interval"] = "Please choose an interval of 1M, 6M or 12M"
	}
	return ValidationError(f)
}

// DraftService keeps the signed-in author's drafts; it implements Drafts.
// A draft's key is DraftNew or the id of one of the author's messages, so
// an author keeps at most one draft more than they have messages, and no
// one reads or replaces another's.
type DraftService struct {
	Drafts   DraftStore
	Messages MessageStore
	Clock    Clock
}

var _ Drafts = (*DraftService)(nil)

// Get returns the author's draft of key, EDraftNotFound when none.
func (s *DraftService) Get(ctx context.Context, key string) (*Draft, error) {
	who, err := s.check(ctx, ScopeMessagesWrite, key)
	if err != nil {
		return nil, err
	}
	return s.Drafts.Draft(ctx, who.UserID, key)
}

// Put keeps d as the author's draft of key, stamped now.
func (s *DraftService) Put(ctx context.Context, key string, d Draft) (*Draft, error) {
	who, err := s.check(ctx, ScopeMessagesWrite, key)
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	d.Owner, d.Key, d.UpdatedAt = who.UserID, key, s.Clock.Now()
	if err := s.Drafts.PutDraft(ctx, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// Delete deletes the author's draft of key; none is no error.
func (s *DraftService) Delete(ctx context.Context, key string) error {
	who, err := s.check(ctx, ScopeMessagesWrite, key)
	if err != nil {
		return err
	}
	return s.Drafts.DeleteDraft(ctx, who.UserID, key)
}

// check finds who acts and that key is DraftNew or one of their messages
// (another's answers as a missing one does).
func (s *DraftService) check(ctx context.Context, scope, key string) (*Identity, error) {
	who, err := authorized(ctx, scope)
	if err != nil {
		return nil, err
	}
	if key == DraftNew {
		return who, nil
	}
	if strings.TrimSpace(key) == "" || len(key) > 64 {
		return nil, ErrMessageNotFound()
	}
	m, err := s.Messages.FindMessageByID(ctx, key)
	if err != nil {
		return nil, err
	}
	if m.Owner != who.UserID {
		return nil, ErrMessageNotFound()
	}
	return who, nil
}

// ErrDraftNotFound is what a store answers for a missing draft.
func ErrDraftNotFound() error { return Errorf(EDraftNotFound, "There is no draft of this message.") }

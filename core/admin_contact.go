package core

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// MaxContactMessageBytes bounds a contact form message.
const MaxContactMessageBytes = 10 * 1024

// ContactSubmission is a message sent through the contact form.
type ContactSubmission struct {
	ID        string
	Name      string
	Email     string
	Message   string
	CreatedAt time.Time
}

// ContactStore persists contact submissions.
type ContactStore interface {
	CreateContact(ctx context.Context, c *ContactSubmission) error
	ListContacts(ctx context.Context, limit int) ([]*ContactSubmission, error)
}

// ContactInput is what the contact form sends. Trap is the hidden honeypot
// field: people never see it, form-filling bots fill it in.
type ContactInput struct {
	Name    string
	Email   string
	Message string
	Trap    string
}

// Validate checks the input with the messages of SPEC.md section 5. The name
// is optional; when given it must fit on one line, as it becomes a header.
func (in *ContactInput) Validate() error {
	f := map[string]string{}
	validateProfileName(f, in.Name, in.Name != "")
	switch email := strings.TrimSpace(in.Email); {
	case email == "":
		f["email"] = "Please enter your email"
	case !ValidEmail(email):
		f["email"] = "Please enter a valid email address"
	}
	switch {
	case strings.TrimSpace(in.Message) == "":
		f["message"] = "Please enter a message"
	case len(in.Message) > MaxContactMessageBytes:
		f["message"] = "The message must be at most 10 KB"
	case bodyProblem(in.Message, "The message") != "":
		f["message"] = bodyProblem(in.Message, "The message")
	}
	return ValidationError(f)
}

// ContactService takes contact form submissions: it stores each one and
// emails it to the operator when To is set. Dependencies are fields, wired
// in cmd.
type ContactService struct {
	Contacts ContactStore
	Outbox   *Outbox // forwards submissions to To
	Emails   Emails
	To       Address // empty Address: stored only
	Clock    Clock
	// Limits counts each client's submissions (LimitContactClient).
	Limits *Limiter
	Logger *slog.Logger
}

var _ ContactForm = (*ContactService)(nil)

// Submit validates, stores and forwards a submission from the client address
// (empty: unknown, not limited), under LimitContactClient. A submission
// with the honeypot filled in looks accepted and is dropped.
func (s *ContactService) Submit(ctx context.Context, in ContactInput, address string) error {
	now := s.Clock.Now()
	client := s.Limits.Client(address)
	if address != "" {
		wait, err := s.Limits.Wait(ctx, LimitContactClient, client)
		if err != nil {
			return err
		}
		if wait > 0 {
			return &Error{
				Code:       ETooManyRequests,
				Message:    "You have sent several messages already. Please wait a while and try again.",
				RetryAfter: wait,
			}
		}
	}
	if err := in.Validate(); err != nil {
		return err
	}
	if address != "" {
		if _, err := s.Limits.Record(ctx, LimitContactClient, client); err != nil {
			return err
		}
	}
	if in.Trap != "" {
		s.log().Info("contact form: honeypot filled, dropped", "address", address)
		return nil
	}
	c := &ContactSubmission{
		ID:        NewID(),
		Name:      strings.TrimSpace(in.Name),
		Email:     strings.TrimSpace(in.Email),
		Message:   in.Message,
		CreatedAt: now,
	}
	if err := s.Contacts.CreateContact(ctx, c); err != nil {
		return err
	}
	if s.To.Address == "" {
		return nil
	}
	name := c.Name
	if name == "" {
		name = c.Email
	}
	e, err := s.Emails.Contact(ContactEmail{To: s.To, Name: name, Email: c.Email, Message: c.Message})
	if err == nil {
		err = s.Outbox.Email(ctx, e)
	}
	if err != nil {
		// The submission is stored: the sender has been heard, and
		// answering an error would only make them send it again.
		s.log().Error("contact form: queueing the stored submission's email failed", "contact_id", c.ID, "err", err)
	}
	return nil
}

func (s *ContactService) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

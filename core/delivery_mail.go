package core

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Address is an email address with an optional display name.
type Address struct {
	Name    string
	Address string
}

// Email is one outgoing email. Date and MessageID may be fixed by the caller
// (the delivery pass reuses one Message-ID on every retry); a transport fills
// them when empty.
type Email struct {
	From      Address // empty: the configured sender
	To        []Address
	ReplyTo   *Address
	Subject   string
	Text      string
	HTML      string
	Date      time.Time
	MessageID string            // without angle brackets, e.g. "abc@sendlater.local"
	Headers   map[string]string // extra headers, e.g. List-Unsubscribe
	// Attachments are files the email carries (attachments.inline_max);
	// none usually: a delivery links its files.
	Attachments []EmailAttachment
	// ReturnPath is the envelope sender (SMTP MAIL FROM), where bounces go:
	// a recipient's VERP address (BounceAddresses); empty: the sender's.
	ReturnPath string
}

// Mailer sends email.
type Mailer interface {
	Send(ctx context.Context, e *Email) error
}

// TemporaryError marks a send failure that may succeed when tried again
// (a 4xx SMTP reply, a network error). Other failures are permanent.
type TemporaryError struct{ Err error }

func (e *TemporaryError) Error() string { return e.Err.Error() }
func (e *TemporaryError) Unwrap() error { return e.Err }

// MailReply is a send failure that the mail server answered: Reply is the
// answer as an author may read it (code, enhanced code, text: "550 5.1.1
// No such user"), without our relay's address or our hosts' names, which
// the error's own text may carry for the log.
type MailReply interface {
	error
	Reply() string
}

// Words of a failed send without a reply, for the author.
const (
	// reasonUnreachable: a connection that failed, a timeout, a closed
	// transport: the failure is ours or the network's, and retried.
	reasonUnreachable = "Our mail server could not be reached or did not answer."
	// reasonNotSent: a permanent failure without a reply (an email the
	// transport could not write).
	reasonNotSent = "Our mail server could not send the email (a fault of this service; its log says why)."
)

// sendReason is what an author reads of a failed send: the mail server's
// reply, or neutral words when there was none. Never the error's own text,
// which names our relay (its host and port, "dial tcp 10.0.0.5:587: ...")
// and goes to the log.
func sendReason(err error) string {
	var r MailReply
	switch {
	case errors.Is(err, errEmailNotMade):
		return errEmailNotMade.Error()
	case errors.As(err, &r) && r.Reply() != "":
		return r.Reply()
	case isTemporary(err):
		return reasonUnreachable
	}
	return reasonNotSent
}

// errEmailNotMade is a send's failure when its email could not be composed:
// a template that fails is a bug of this server, never the message's, so it
// is a failure for now, retried as a mail server's refusal for now would
// be (a fixed server then sends it), and the author's timeline says so
// without the template's words, which go to the server's log (emailNotMade).
var errEmailNotMade = &TemporaryError{Err: errors.New("the email could not be made (a fault of this service; its log says why)")}

// emailNotMade logs why an email could not be composed and returns
// errEmailNotMade.
func emailNotMade(log *slog.Logger, err error) error {
	log.Error("an email could not be made", "err", err)
	return errEmailNotMade
}

// Emails composes every kind of email the product sends, one method per kind.
// The mailer package implements it with embedded templates; the result is
// handed to a Mailer.
type Emails interface {
	VerifyEmail(d ActionEmail) (*Email, error)
	PasswordReset(d ActionEmail) (*Email, error)
	EmailChanged(d EmailChangedEmail) (*Email, error)
	AccountClaimed(d AccountClaimedEmail) (*Email, error)
	Reminder(d ReminderEmail) (*Email, error)
	Delivery(d DeliveryEmail) (*Email, error)
	DeliveryFailed(d DeliveryFailedEmail) (*Email, error)
	Contact(d ContactEmail) (*Email, error)
	OperatorSummary(d OperatorSummaryEmail) (*Email, error)
	ReminderAddress(d ReminderAddressEmail) (*Email, error)
	RecipientNotice(d RecipientNoticeEmail) (*Email, error)
	SecurityNotice(d SecurityNoticeEmail) (*Email, error)
	NewSignIn(d NewSignInEmail) (*Email, error)
	RecipientBouncing(d RecipientBouncingEmail) (*Email, error)
}

// RecipientBouncingEmail tells the author that Recipient's address returned
// an email (Email: "message" or "notice") for good with Reason, and asks
// them to change it before SendDate (unless Delivered) at EditLink.
type RecipientBouncingEmail struct {
	To        Address
	Title     string
	Recipient Address
	Email     string
	Reason    string
	SendDate  time.Time
	Location  *time.Location
	Delivered bool
	EditLink  string
}

// What a SecurityNoticeEmail tells.
const (
	SecurityTOTPOn            = "totp-on"             // the authenticator app was turned on
	SecurityTOTPOff           = "totp-off"            // ... turned off by the owner
	SecurityRecoveryCodeUsed  = "recovery-code-used"  // a recovery code signed in
	SecuritySecondFactorReset = "second-factor-reset" // an operator removed the second factor
)

// SecurityNoticeEmail tells an account's owner that its sign-in changed:
// Kind is one of the Security* constants; Remaining is how many recovery
// codes remain (SecurityRecoveryCodeUsed); Link is the settings page.
type SecurityNoticeEmail struct {
	To        Address
	Kind      string
	At        time.Time
	Location  *time.Location
	Remaining int
	Link      string
}

// ReminderAddressEmail asks a second reminder address to confirm that it
// wants the reminders of Author, with a one-click refusal.
type ReminderAddressEmail struct {
	To              Address
	Author          Address
	Link            string // <base_url>/firebase-action?mode=confirmReminderAddress&oobCode=...
	UnsubscribeLink string
}

// ActionEmail is a verification or password reset email: a link to follow.
type ActionEmail struct {
	To   Address
	Link string // <base_url>/firebase-action?mode=...&oobCode=...
	// A verification says what asked for it and when, so that the owner of
	// an address someone else gave can tell: Reason is a clause such as
	// "an account was started with this address and a password".
	Reason string
	At     time.Time
}

// EmailChangedEmail goes to the old address after an email change, with a
// link that restores it.
type EmailChangedEmail struct {
	To          Address
	NewEmail    string
	RecoverLink string
}

// ReminderEmail tells the author that a message will be delivered soon.
type ReminderEmail struct {
	To            Address
	Title         string
	SendDate      time.Time // shown in Location
	Location      *time.Location
	PostponeLink  string // <base_url>/postpone/<id>?code=<postponeCode>&step=<step>
	DashboardLink string
	// Step names the reminder (10d, 3d, 1d, 2h); LastChance: it is the
	// last reminder before the delivery of a ladder of several.
	Step       string
	LastChance bool
	// CopyOf is the author when this is the copy to their second reminder
	// address; UnsubscribeLink, the copy's one-click refusal.
	CopyOf          Address
	UnsubscribeLink string
	// Bouncing lists the recipients whose address returned an email for
	// good (issue 31), to change before the delivery; EditLink opens the
	// message.
	Bouncing []BouncingRecipient
	EditLink string
}

// BouncingRecipient is a recipient that bounced, as a reminder lists it.
type BouncingRecipient struct {
	Address Address
	Reason  string
}

// DeliveryEmail is the message itself, sent to the recipient. It never
// carries the message's title.
type DeliveryEmail struct {
	To              Address // recipient name and address
	Author          Address // Reply-To
	Body            string
	WrittenAt       time.Time
	Location        *time.Location // the author's time zone
	MessageID       string
	Date            time.Time
	UnsubscribeLink string // one-click refusal of further messages
	// Sealed says the message is sealed: the email carries no content but
	// the hint and the recipient's OpenLink (Body is empty).
	Sealed   bool
	Hint     string
	OpenLink string
	// OpenFor is how long the link opens after delivery, in words
	// (OpenValidityWords).
	OpenFor string
	// Files are the message's files, each with the recipient's link;
	// FilesFor is how long the links download, in words.
	Files    []DeliveryFile
	FilesFor string
	// Attachments are the files the email also carries (InlineMax).
	Attachments []EmailAttachment
}

// DeliveryFailedEmail tells the author a message could not be delivered.
type DeliveryFailedEmail struct {
	To            Address
	Title         string
	Recipient     Address
	Reason        string
	DashboardLink string
}

// ContactEmail forwards a contact form submission to the operator.
type ContactEmail struct {
	To      Address
	Name    string
	Email   string
	Message string
}

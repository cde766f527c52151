package core

// "Send a test to me" and the preview: what each recipient will receive,
// rendered by the delivery's own template code (deliveryEmail, Emails).

import (
	"context"
	"fmt"
	"time"
)

// Test sends are counted per account and per receiving address, never per
// message, so that deleting a message and writing another starts no new
// count (docs/api.md). A test send is one email per recipient of the
// message, at most 10.
var (
	LimitTestSendsAccountHour = Limit{"test-send-account-hour", 5, time.Hour}
	LimitTestSendsAccountDay  = Limit{"test-send-account-day", 20, 24 * time.Hour}
	LimitTestSendsAddressHour = Limit{"test-send-address-hour", 5, time.Hour}
	LimitTestSendsAddressDay  = Limit{"test-send-address-day", 20, 24 * time.Hour}
)

// ETestEmailsRefused: the author's address refused test emails with the
// link of an earlier one (or every message, with a delivery's).
const ETestEmailsRefused = "message/test-emails-refused"

// testSendLimits are the limits of a test send by u to its address.
func testSendLimits(u *User) []LimitTake {
	key := EmailKey(u.Email)
	return []LimitTake{
		{LimitTestSendsAccountHour, u.ID}, {LimitTestSendsAccountDay, u.ID},
		{LimitTestSendsAddressHour, key}, {LimitTestSendsAddressDay, key},
	}
}

func errTooManyTestSends(wait time.Duration) error {
	return &Error{Code: ETooManyRequests, RetryAfter: wait, Message: fmt.Sprintf(
		"Test emails are limited to %d an hour and %d a day, for each account and each address: please try again %s.",
		LimitTestSendsAccountHour.Max, LimitTestSendsAccountDay.Max, waitWords(wait))}
}

// waitWords says a wait: "in 12 minutes", "in 3 hours".
func waitWords(d time.Duration) string {
	switch m := int((d + time.Minute - 1) / time.Minute); {
	case m <= 1:
		return "in a minute"
	case m < 120:
		return fmt.Sprintf("in %d minutes", m)
	default:
		return fmt.Sprintf("in %d hours", (m+59)/60)
	}
}

// TestSubjectPrefix marks a test send's subject.
const TestSubjectPrefix = "[Test] "

// EmailPreview is the email one recipient will receive.
type EmailPreview struct {
	To      Address
	Subject string
	Text    string
	HTML    string
}

// renderDeliveries renders the delivery email of each recipient of m, as
// the pass composes it (deliveryEmail), without the refusal link: a link
// in a preview or a test would refuse the recipient's address. A sealed
// message's open link is a test link (OpenTokens.TestToken), which opens
// nothing; the files' links are test links (FileTestToken), which download
// only for the author, signed in.
func renderDeliveries(emails Emails, baseURL string, openValidity, fileValidity time.Duration, m *Message, files []*Attachment, author *User, now time.Time) ([]*Email, error) {
	d := &Delivery{BaseURL: baseURL, OpenValidity: openValidity, FileValidity: fileValidity}
	var out []*Email
	for _, r := range m.RecipientList() {
		e, err := emails.Delivery(d.deliveryEmail(m, &r, author, files, now))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Preview renders what each recipient of a message written as in will
// receive, before it is saved: the same checks as Create, nothing stored.
func (s *MessageService) Preview(ctx context.Context, in MessageInput) ([]EmailPreview, error) {
	if _, err := authorized(ctx, ScopeMessagesRead); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	u, err := s.author(ctx, ScopeMessagesRead)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	return s.previews(ctx, NewMessage(u.ID, in, now, u.Location()), false, u, now)
}

// PreviewMessage renders what each recipient of the author's stored
// message id will receive, as the message would be after up (the zero
// update: as it is): written on its CreatedAt, in the author's zone, as the
// delivery says it. The same checks as Update; nothing is stored. Another
// user's message is not found.
func (s *MessageService) PreviewMessage(ctx context.Context, id string, up MessageUpdate) ([]EmailPreview, error) {
	if _, err := authorized(ctx, ScopeMessagesRead); err != nil {
		return nil, err
	}
	if err := up.Validate(); err != nil {
		return nil, err
	}
	m, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	u, err := s.author(ctx, ScopeMessagesRead)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	edited := *m // Apply replaces the recipients' slice, never writes into it
	edited.Apply(up, now, u.Location())
	return s.previews(ctx, &edited, true, u, now)
}

// previewFiles are the complete files of the stored message m, as its
// emails will list them.
func (s *MessageService) previewFiles(ctx context.Context, m *Message) ([]*Attachment, error) {
	if s.Files == nil {
		return nil, nil
	}
	as, err := s.Files.MessageFiles(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	return completeFiles(as), nil
}

// previews renders each recipient's email of m by author; stored: m is
// kept (its files are listed, with test links).
func (s *MessageService) previews(ctx context.Context, m *Message, stored bool, author *User, now time.Time) ([]EmailPreview, error) {
	if s.Emails == nil {
		return nil, Errorf(EUnavailable, "Previews are not available on this server.")
	}
	var files []*Attachment
	if stored {
		var err error
		if files, err = s.previewFiles(ctx, m); err != nil {
			return nil, err
		}
	}
	es, err := renderDeliveries(s.Emails, s.BaseURL, s.OpenValidity, s.FileValidity, m, files, author, now)
	if err != nil {
		return nil, err
	}
	out := make([]EmailPreview, len(es))
	for i, e := range es {
		out[i] = EmailPreview{Subject: e.Subject, Text: e.Text, HTML: e.HTML}
		if len(e.To) > 0 {
			out[i].To = e.To[0]
		}
	}
	return out, nil
}

// SendTest emails the author what each recipient of the message will
// receive, one email per recipient with the subject marked as a test,
// through the outbox; the message and its schedule stay as they are. The
// author's text goes to no address but one its owner confirmed: an
// unverified account is refused (EEmailNotVerified), as is an address that
// refused test emails; the sends are limited per account and per address
// (testSendLimits); each email carries the one-click refusal of further
// test emails (List-Unsubscribe, RFC 8058). It returns how many emails it
// queued.
func (s *MessageService) SendTest(ctx context.Context, id string) (int, error) {
	// A test causes emails: a change, though the message stays as it is.
	if _, err := authorized(ctx, ScopeMessagesWrite); err != nil {
		return 0, err
	}
	m, err := s.Get(ctx, id)
	if err != nil {
		return 0, err
	}
	u, err := s.author(ctx, ScopeMessagesWrite)
	if err != nil {
		return 0, err
	}
	if s.Emails == nil || s.Outbox == nil {
		return 0, Errorf(EUnavailable, "Test sends are not available on this server.")
	}
	if !u.EmailVerified {
		return 0, Errorf(EEmailNotVerified,
			"Please confirm your email address first: follow the link we sent to %s, then send a test.", u.Email)
	}
	if s.Refusals != nil {
		refused, err := s.Refusals.TestEmailsRefused(ctx, u.Email)
		if err != nil {
			return 0, err
		}
		if refused {
			return 0, Errorf(ETestEmailsRefused,
				"%s refused test emails through the link of an earlier email, so none is sent; the preview shows each email.", u.Email)
		}
	}
	files, err := s.previewFiles(ctx, m)
	if err != nil {
		return 0, err
	}
	es, err := renderDeliveries(s.Emails, s.BaseURL, s.OpenValidity, s.FileValidity, m, files, u, s.Clock.Now())
	if err != nil {
		return 0, err
	}
	wait, err := s.Limits.Take(ctx, testSendLimits(u)...)
	if err != nil {
		return 0, err
	}
	if wait > 0 {
		return 0, errTooManyTestSends(wait)
	}
	var headers map[string]string
	if s.Refusals != nil {
		link := s.BaseURL + "/unsubscribe/" + s.Refusals.Tokens.TokenOf(RefuseTestEmails, u.Email)
		headers = map[string]string{"List-Unsubscribe": "<" + link + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
	}
	rs := m.RecipientList()
	for i, e := range es {
		e.To = []Address{{Name: u.Name, Address: u.Email}}
		e.ReplyTo, e.MessageID, e.Headers = nil, "", headers
		e.Subject = TestSubjectPrefix + e.Subject + " (as " + rs[i].Name + " will receive it)"
		if err := s.Outbox.Email(ctx, e); err != nil {
			return 0, err
		}
	}
	return len(es), nil
}

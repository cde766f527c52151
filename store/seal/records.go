package seal

import (
	"encoding/json"
	"fmt"

	"github.com/sendlater/sendlater/core"
)

// Sealed fields. A message's are bound to its id; an outbox item's to its
// id (for a webhook or failure notice, its message's id), a webhook secret
// and an account's name to its user's id, a contact submission's to its id,
// under names that keep them apart from each other.
const (
	fieldTitle            = "title"
	fieldName             = "name"
	fieldRecipient        = "recipient"
	fieldBody             = "body"
	fieldLastError        = "lastError"
	fieldRecipients       = "recipients"
	fieldEventRecipient   = "eventRecipient"
	fieldEventDetail      = "eventDetail"
	fieldWebhookRecipient = "webhookRecipient"
	fieldWebhookError     = "webhookError"
	fieldWebhookSecret    = "webhookSecret"
	fieldOutboxEmail      = "outboxEmail"
	fieldUserName         = "userName"
	fieldReminderAddress  = "reminderAddress"
	fieldTOTPSecret       = "totpSecret"
	fieldContactName      = "contactName"
	fieldContactEmail     = "contactEmail"
	fieldContactMessage   = "contactMessage"
	fieldDraft            = "draft" // a draft's contents, bound to "draft/owner/key"
)

// Message is a message as a store keeps it: Plain holds the fields kept in
// clear (its sealed fields are empty there), the others are sealed. The
// title, the recipient's name and address, the body and the last error
// (which may quote the address) are sealed; LastError is nil when empty.
// Recipients is the sealed list of every recipient with their delivery, nil
// for a message stored before messages had several (RecipientList).
type Message struct {
	Plain                                   core.Message
	Title, Name, Recipient, Body, LastError []byte
	Recipients                              []byte
}

// SealMessage seals m's contents, each with a fresh nonce.
func (s *Sealer) SealMessage(m *core.Message) Message {
	sm := Message{
		Plain:     *m,
		Title:     s.sealField(m.ID, fieldTitle, m.Title),
		Name:      s.sealField(m.ID, fieldName, m.Name),
		Recipient: s.sealField(m.ID, fieldRecipient, m.Recipient),
		Body:      s.sealField(m.ID, fieldBody, m.Body),
	}
	if m.LastError != "" {
		sm.LastError = s.sealField(m.ID, fieldLastError, m.LastError)
	}
	if len(m.Recipients) > 0 {
		sm.Recipients = s.sealField(m.ID, fieldRecipients, string(marshalRecipients(m.Recipients)))
	}
	sm.Plain.Title, sm.Plain.Name, sm.Plain.Recipient, sm.Plain.Body, sm.Plain.LastError = "", "", "", "", ""
	sm.Plain.Recipients = nil
	return sm
}

// OpenMessage opens sm's contents into a new message. Every sealed field
// opens into one buffer that becomes one string; the fields are substrings
// of it: one allocation for a message's contents.
func (s *Sealer) OpenMessage(sm *Message) (*core.Message, error) {
	m := new(core.Message)
	*m = sm.Plain
	fields := [...]struct {
		name   string
		sealed []byte
		dst    *string
	}{
		{fieldTitle, sm.Title, &m.Title},
		{fieldName, sm.Name, &m.Name},
		{fieldRecipient, sm.Recipient, &m.Recipient},
		{fieldBody, sm.Body, &m.Body},
		{fieldLastError, sm.LastError, &m.LastError},
	}
	buf := openBuffers.Get().(*openBuffer)
	defer buf.release()
	var ends [len(fields)]int
	for i, f := range fields {
		if f.sealed != nil {
			if err := s.openInto(buf, m.ID, f.name, f.sealed); err != nil {
				return nil, err
			}
		}
		ends[i] = len(buf.pt)
	}
	contents, start := string(buf.pt), 0
	for i, f := range fields {
		*f.dst, start = contents[start:ends[i]], ends[i]
	}
	if sm.Recipients != nil {
		b, err := s.openField(m.ID, fieldRecipients, sm.Recipients)
		if err != nil {
			return nil, err
		}
		if m.Recipients, err = unmarshalRecipients([]byte(b)); err != nil {
			return nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
	}
	return m, nil
}

// OutboxItem is an outbox item as a store keeps it: the recipient's
// address, the last error and the email (which may carry a secret link)
// sealed, bound to the item's id; the rest in Plain. LastError and Email are
// nil when empty.
type OutboxItem struct {
	Plain                       core.OutboxItem
	Recipient, LastError, Email []byte
}

// SealOutboxItem seals item's recipient, last error and email.
func (s *Sealer) SealOutboxItem(item *core.OutboxItem) OutboxItem {
	si := OutboxItem{Plain: *item, Recipient: s.sealField(item.ID, fieldWebhookRecipient, item.Recipient)}
	if item.LastError != "" {
		si.LastError = s.sealField(item.ID, fieldWebhookError, item.LastError)
	}
	if item.Email != nil {
		si.Email = s.sealField(item.ID, fieldOutboxEmail, string(marshalEmail(item.Email)))
	}
	si.Plain.Recipient, si.Plain.LastError, si.Plain.Email = "", "", nil
	return si
}

// OpenOutboxItem opens si into a new item.
func (s *Sealer) OpenOutboxItem(si *OutboxItem) (*core.OutboxItem, error) {
	item := new(core.OutboxItem)
	*item = si.Plain
	var err error
	if item.Recipient, err = s.openField(item.ID, fieldWebhookRecipient, si.Recipient); err != nil {
		return nil, err
	}
	if si.LastError != nil {
		if item.LastError, err = s.openField(item.ID, fieldWebhookError, si.LastError); err != nil {
			return nil, err
		}
	}
	if si.Email != nil {
		b, err := s.openField(item.ID, fieldOutboxEmail, si.Email)
		if err != nil {
			return nil, err
		}
		if item.Email, err = unmarshalEmail([]byte(b)); err != nil {
			return nil, fmt.Errorf("outbox item %s: %w", item.ID, err)
		}
	}
	return item, nil
}

// SealWebhookSecret seals a user's webhook signing secret.
func (s *Sealer) SealWebhookSecret(userID, secret string) []byte {
	return s.sealField(userID, fieldWebhookSecret, secret)
}

// OpenWebhookSecret opens what SealWebhookSecret sealed for userID.
func (s *Sealer) OpenWebhookSecret(userID string, sealed []byte) (string, error) {
	return s.openField(userID, fieldWebhookSecret, sealed)
}

// User is an account as a store keeps it: the name sealed, bound to the
// user's id, the rest in Plain (whose Name is empty). The email stays in
// clear: sign-in finds an account by it.
type User struct {
	Plain core.User
	Name  []byte
	// ReminderAddress is the sealed second reminder address; nil: none.
	ReminderAddress []byte
	// TOTPSecret is the sealed authenticator app's secret; nil: none.
	TOTPSecret []byte
}

// SealUser seals u's name, second reminder address and TOTP secret.
func (s *Sealer) SealUser(u *core.User) User {
	su := User{Plain: *u, Name: s.sealField(u.ID, fieldUserName, u.Name)}
	if u.ReminderAddress != "" {
		su.ReminderAddress = s.sealField(u.ID, fieldReminderAddress, u.ReminderAddress)
	}
	if u.TOTPSecret != "" {
		su.TOTPSecret = s.sealField(u.ID, fieldTOTPSecret, u.TOTPSecret)
	}
	su.Plain.Name, su.Plain.ReminderAddress, su.Plain.TOTPSecret = "", "", ""
	return su
}

// OpenUser opens su into a new user.
func (s *Sealer) OpenUser(su *User) (*core.User, error) {
	u := new(core.User)
	*u = su.Plain
	var err error
	if u.Name, err = s.openField(u.ID, fieldUserName, su.Name); err != nil {
		return nil, err
	}
	if su.ReminderAddress != nil {
		if u.ReminderAddress, err = s.openField(u.ID, fieldReminderAddress, su.ReminderAddress); err != nil {
			return nil, err
		}
	}
	if su.TOTPSecret != nil {
		if u.TOTPSecret, err = s.openField(u.ID, fieldTOTPSecret, su.TOTPSecret); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// Contact is a contact form submission as a store keeps it: the name, the
// email and the message sealed, bound to its id.
type Contact struct {
	Plain                core.ContactSubmission
	Name, Email, Message []byte
}

// SealContact seals c's contents.
func (s *Sealer) SealContact(c *core.ContactSubmission) Contact {
	sc := Contact{
		Plain:   *c,
		Name:    s.sealField(c.ID, fieldContactName, c.Name),
		Email:   s.sealField(c.ID, fieldContactEmail, c.Email),
		Message: s.sealField(c.ID, fieldContactMessage, c.Message),
	}
	sc.Plain.Name, sc.Plain.Email, sc.Plain.Message = "", "", ""
	return sc
}

// OpenContact opens sc into a new submission.
func (s *Sealer) OpenContact(sc *Contact) (*core.ContactSubmission, error) {
	c := new(core.ContactSubmission)
	*c = sc.Plain
	for _, f := range []struct {
		name   string
		sealed []byte
		dst    *string
	}{{fieldContactName, sc.Name, &c.Name}, {fieldContactEmail, sc.Email, &c.Email}, {fieldContactMessage, sc.Message, &c.Message}} {
		v, err := s.openField(c.ID, f.name, f.sealed)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	return c, nil
}

// Event is a timeline entry as a store keeps it: the recipient's address
// and the detail (a mail server's reply may quote it) sealed, bound to the
// message's id; the rest in Plain. Both are nil when empty.
type Event struct {
	Plain             core.MessageEvent
	Recipient, Detail []byte
	// Seq is the store's order of the event, its key in store copy.
	Seq int64
}

// SealEvent seals e's recipient and detail.
func (s *Sealer) SealEvent(e *core.MessageEvent) Event {
	se := Event{Plain: *e}
	if e.Recipient != "" {
		se.Recipient = s.sealField(e.MessageID, fieldEventRecipient, e.Recipient)
	}
	if e.Detail != "" {
		se.Detail = s.sealField(e.MessageID, fieldEventDetail, e.Detail)
	}
	se.Plain.Recipient, se.Plain.Detail = "", ""
	return se
}

// OpenEvent opens se into a new event.
func (s *Sealer) OpenEvent(se *Event) (*core.MessageEvent, error) {
	e := new(core.MessageEvent)
	*e = se.Plain
	var err error
	if se.Recipient != nil {
		if e.Recipient, err = s.openField(e.MessageID, fieldEventRecipient, se.Recipient); err != nil {
			return nil, err
		}
	}
	if se.Detail != nil {
		if e.Detail, err = s.openField(e.MessageID, fieldEventDetail, se.Detail); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// draftContents is a draft's sealed part: everything the author typed.
type draftContents struct {
	Title      string           `json:"title"`
	Recipients []draftRecipient `json:"recipients,omitempty"`
	Body       string           `json:"message"`
	Interval   string           `json:"interval,omitempty"`
}

type draftRecipient struct {
	Name    string `json:"name"`
	Address string `json:"recipient"`
}

// draftID is the record a draft's seal is bound to: its owner and key.
func draftID(owner, key string) string { return "draft/" + owner + "/" + key }

// SealDraft seals what d's author typed (its title, recipients, body and
// interval) as one field, bound to its owner and key.
func (s *Sealer) SealDraft(d *core.Draft) []byte {
	c := draftContents{Title: d.Title, Body: d.Body, Interval: string(d.Interval)}
	for _, r := range d.Recipients {
		c.Recipients = append(c.Recipients, draftRecipient(r))
	}
	b, _ := json.Marshal(c) // strings only: cannot fail
	return s.sealField(draftID(d.Owner, d.Key), fieldDraft, string(b))
}

// OpenDraft opens what SealDraft sealed into d, whose Owner and Key are set.
func (s *Sealer) OpenDraft(d *core.Draft, sealed []byte) error {
	pt, err := s.openField(draftID(d.Owner, d.Key), fieldDraft, sealed)
	if err != nil {
		return err
	}
	var c draftContents
	if err := json.Unmarshal([]byte(pt), &c); err != nil {
		return fmt.Errorf("draft of %s: %w", d.Owner, err)
	}
	d.Title, d.Body, d.Interval, d.Recipients = c.Title, c.Body, core.Interval(c.Interval), nil
	for _, r := range c.Recipients {
		d.Recipients = append(d.Recipients, core.DraftRecipient(r))
	}
	return nil
}

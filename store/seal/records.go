package seal

import (
	"fmt"

	"github.com/sendlater/sendlater/core"
)

// Sealed fields. A message's are bound to its id; an outbox item's to its
// id (for a webhook or failure notice, its message's id), a webhook secret
// to its user's id, under names that keep them apart from the message's own
// fields.
const (
	fieldTitle            = "title"
	fieldName             = "name"
	fieldRecipient        = "recipient"
	fieldBody             = "body"
	fieldLastError        = "lastError"
	fieldWebhookRecipient = "webhookRecipient"
	fieldWebhookError     = "webhookError"
	fieldWebhookSecret    = "webhookSecret"
	fieldOutboxEmail      = "outboxEmail"
)

// Message is a message as a store keeps it: Plain holds the fields kept in
// clear (its sealed fields are empty there), the others are sealed. The
// title, the recipient's name and address, the body and the last error
// (which may quote the address) are sealed; LastError is nil when empty.
type Message struct {
	Plain                                   core.Message
	Title, Name, Recipient, Body, LastError []byte
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
	sm.Plain.Title, sm.Plain.Name, sm.Plain.Recipient, sm.Plain.Body, sm.Plain.LastError = "", "", "", "", ""
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

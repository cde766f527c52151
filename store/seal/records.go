package seal

import "github.com/sendlater/sendlater/core"

// Sealed fields. A message's are bound to its id; a webhook call's to its
// message's id, a webhook secret to its user's id, under names that keep
// them apart from the message's own fields.
const (
	fieldTitle            = "title"
	fieldName             = "name"
	fieldRecipient        = "recipient"
	fieldBody             = "body"
	fieldLastError        = "lastError"
	fieldWebhookRecipient = "webhookRecipient"
	fieldWebhookError     = "webhookError"
	fieldWebhookSecret    = "webhookSecret"
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

// WebhookCall is a webhook call as a store keeps it: the recipient's address
// and the last error sealed, the rest in Plain (LastError nil when empty).
type WebhookCall struct {
	Plain                core.WebhookCall
	Recipient, LastError []byte
}

// SealWebhookCall seals c's recipient and last error.
func (s *Sealer) SealWebhookCall(c *core.WebhookCall) WebhookCall {
	sc := WebhookCall{Plain: *c, Recipient: s.sealField(c.MessageID, fieldWebhookRecipient, c.Recipient)}
	if c.LastError != "" {
		sc.LastError = s.sealField(c.MessageID, fieldWebhookError, c.LastError)
	}
	sc.Plain.Recipient, sc.Plain.LastError = "", ""
	return sc
}

// OpenWebhookCall opens sc into a new call.
func (s *Sealer) OpenWebhookCall(sc *WebhookCall) (*core.WebhookCall, error) {
	c := new(core.WebhookCall)
	*c = sc.Plain
	var err error
	if c.Recipient, err = s.openField(c.MessageID, fieldWebhookRecipient, sc.Recipient); err != nil {
		return nil, err
	}
	if sc.LastError != nil {
		if c.LastError, err = s.openField(c.MessageID, fieldWebhookError, sc.LastError); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// SealWebhookSecret seals a user's webhook signing secret.
func (s *Sealer) SealWebhookSecret(userID, secret string) []byte {
	return s.sealField(userID, fieldWebhookSecret, secret)
}

// OpenWebhookSecret opens what SealWebhookSecret sealed for userID.
func (s *Sealer) OpenWebhookSecret(userID string, sealed []byte) (string, error) {
	return s.openField(userID, fieldWebhookSecret, sealed)
}

package core

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// MaxRecipients is how many recipients a message may have on a plan that
// allows more than one (Pro, Business); the free plan allows one.
const MaxRecipients = 10

// RecipientStatus is where one recipient's email is: pending until it is
// sent, refused by the recipient, or failed for good.
type RecipientStatus string

const (
	RecipientPending RecipientStatus = "pending"
	RecipientSent    RecipientStatus = "sent"
	RecipientFailed  RecipientStatus = "failed"
	RecipientRefused RecipientStatus = "refused" // the address refused every message
)

// Recipient is one person a message goes to, with the delivery of their own
// email: never a copy of another's (no CC or BCC), its own Message-ID,
// attempts and outcome. Message.Name and Message.Recipient are always the
// first recipient's name and address.
type Recipient struct {
	Name    string
	Address string

	Status         RecipientStatus // "" reads as pending
	EmailMessageID string          // fixed at the first claim, reused on every retry
	Attempts       int
	NextAttemptAt  time.Time // a retry after a temporary failure
	LastError      string
	SentAt         time.Time

	// Bounce is the last hard bounce of an email to the address (its
	// VERP return path): the recipient is "bouncing" while At is set.
	// Editing the address clears it.
	Bounce RecipientBounce
	// SoftBounces counts the soft bounces (a full mailbox, a server down).
	SoftBounces int
}

// RecipientBounce is a hard bounce of an email to a recipient.
type RecipientBounce struct {
	At     time.Time
	Email  BounceEmail // which email bounced
	Status string      // the enhanced status code, e.g. 5.1.1
	Reason string      // the remote server's words
}

// Bouncing tells whether the recipient's address returned an email for
// good.
func (r *Recipient) Bouncing() bool { return !r.Bounce.At.IsZero() }

// settled reports whether nothing is left to send to r.
func (r *Recipient) settled() bool {
	return r.Status == RecipientSent || r.Status == RecipientFailed || r.Status == RecipientRefused
}

// RecipientInput is a recipient as an author writes it.
type RecipientInput struct {
	Name    string
	Address string
}

// recipientField names a recipient's field in validation errors: the first
// recipient's fields keep the names of API.md (name, recipient), the others
// are recipients[i].name and recipients[i].recipient.
func recipientField(i int, field string) string {
	if i == 0 {
		if field == "address" {
			return "recipient"
		}
		return "name"
	}
	if field == "address" {
		field = "recipient"
	}
	return fmt.Sprintf("recipients[%d].%s", i, field)
}

// validateRecipients checks a list of recipients with the messages of
// SPEC.md section 5 for each: 1 to MaxRecipients, each named, each a real
// mailbox, no address twice.
func validateRecipients(f map[string]string, rs []RecipientInput) {
	if len(rs) == 0 {
		validateName(f, "")
		validateRecipient(f, "")
		return
	}
	if len(rs) > MaxRecipients {
		f["recipients"] = fmt.Sprintf("A message has at most %d recipients", MaxRecipients)
		return
	}
	seen := map[string]bool{}
	for i, r := range rs {
		g := map[string]string{}
		validateName(g, r.Name)
		validateRecipient(g, r.Address)
		if m, ok := g["name"]; ok {
			f[recipientField(i, "name")] = m
		}
		if m, ok := g["recipient"]; ok {
			f[recipientField(i, "address")] = m
			continue
		}
		addr := strings.ToLower(strings.TrimSpace(r.Address))
		if seen[addr] {
			f[recipientField(i, "address")] = "This address is already a recipient of this message"
		}
		seen[addr] = true
	}
}

// list is the recipients the input names.
func (in *MessageInput) list() []RecipientInput {
	if len(in.Recipients) > 0 {
		return in.Recipients
	}
	return []RecipientInput{{Name: in.Name, Address: in.Recipient}}
}

// checkFirstRecipient refuses a name or recipient beside a list of
// recipients when they are not the list's first.
func checkFirstRecipient(f map[string]string, rs []RecipientInput, name, address *string) {
	if len(rs) == 0 {
		return
	}
	if name != nil && *name != "" && strings.TrimSpace(*name) != strings.TrimSpace(rs[0].Name) ||
		address != nil && *address != "" && strings.TrimSpace(*address) != strings.TrimSpace(rs[0].Address) {
		f["recipients"] = "name and recipient must be the first of recipients when both are given"
	}
}

// RecipientLimit is how many recipients a message may have on a plan: 1
// without an active Pro or Business plan (SPEC.md section 9), else
// MaxRecipients.
func RecipientLimit(plan PlanID, planActive bool) int {
	if MessageLimit(plan, planActive) == 0 {
		return MaxRecipients
	}
	return 1
}

// checkRecipientLimit is the plan's rule on the number of recipients.
func (pm PriceMap) checkRecipientLimit(u *User, n int) error {
	plan, active := pm.PlanOf(u)
	if limit := RecipientLimit(plan, active); n > limit {
		return Errorf(EPlanLimit, "Your plan allows %d recipient per message; upgrade to Pro for up to %d.", limit, MaxRecipients)
	}
	return nil
}

// newRecipients is the recipients of a new or replaced list, trimmed, each
// pending.
func newRecipients(rs []RecipientInput) []Recipient {
	out := make([]Recipient, len(rs))
	for i, r := range rs {
		out[i] = Recipient{Name: strings.TrimSpace(r.Name), Address: strings.TrimSpace(r.Address), Status: RecipientPending}
	}
	return out
}

// RecipientList returns the message's recipients. A message stored before
// it had a list has one: its name and address, with the message's own
// delivery state. Name, Recipient and EmailMessageID are the first's, and
// win over a list that says otherwise.
func (m *Message) RecipientList() []Recipient {
	if len(m.Recipients) == 0 {
		r := Recipient{Name: m.Name, Address: m.Recipient, Status: RecipientPending, EmailMessageID: m.EmailMessageID,
			Attempts: m.Attempts, NextAttemptAt: m.NextAttemptAt, LastError: m.LastError}
		switch m.Status {
		case StatusDelivered:
			r.Status, r.SentAt = RecipientSent, m.DeliveredAt
		case StatusFailed:
			r.Status = RecipientFailed
		}
		return []Recipient{r}
	}
	first := m.Recipients[0]
	if m.Name == first.Name && m.Recipient == first.Address && (m.EmailMessageID == "" || m.EmailMessageID == first.EmailMessageID) {
		return m.Recipients
	}
	rs := slices.Clone(m.Recipients)
	rs[0].Name, rs[0].Address = m.Name, m.Recipient
	if m.EmailMessageID != "" {
		rs[0].EmailMessageID = m.EmailMessageID
	}
	return rs
}

// editRecipients returns a copy of the list for m to change: the stores
// compare a message before and after an edit, so a list is never changed
// in place.
func (m *Message) editRecipients() []Recipient {
	m.Recipients = slices.Clone(m.RecipientList())
	return m.Recipients
}

// setRecipients replaces the list and keeps Name and Recipient the first's.
func (m *Message) setRecipients(rs []Recipient) {
	m.Recipients = rs
	m.Name, m.Recipient, m.EmailMessageID = rs[0].Name, rs[0].Address, rs[0].EmailMessageID
}

// anySent reports whether some recipient has been sent the message: its
// delivery has begun, and it can no longer change.
func (m *Message) anySent() bool {
	for _, r := range m.Recipients {
		if r.Status == RecipientSent {
			return true
		}
	}
	return false
}

// SameRecipients reports whether two lists are equal, delivery state
// included (the stores seal a list again only when it changed).
func SameRecipients(a, b []Recipient) bool {
	return slices.EqualFunc(a, b, func(x, y Recipient) bool {
		return x.Name == y.Name && x.Address == y.Address && x.Status == y.Status &&
			x.EmailMessageID == y.EmailMessageID && x.Attempts == y.Attempts &&
			x.NextAttemptAt.Equal(y.NextAttemptAt) && x.LastError == y.LastError && x.SentAt.Equal(y.SentAt) &&
			x.Bounce.At.Equal(y.Bounce.At) && x.Bounce.Email == y.Bounce.Email && x.Bounce.Status == y.Bounce.Status &&
			x.Bounce.Reason == y.Bounce.Reason && x.SoftBounces == y.SoftBounces
	})
}

// recipientInputs is the list as an author wrote it.
func recipientInputs(rs []Recipient) []RecipientInput {
	out := make([]RecipientInput, len(rs))
	for i, r := range rs {
		out[i] = RecipientInput{Name: r.Name, Address: r.Address}
	}
	return out
}

// keepBounces carries the bounce marks of old over to the recipients of rs
// whose address did not change (in any case): a new address starts clean.
func keepBounces(rs, old []Recipient) {
	for i := range rs {
		for _, o := range old {
			if strings.EqualFold(o.Address, rs[i].Address) {
				rs[i].Bounce, rs[i].SoftBounces = o.Bounce, o.SoftBounces
				break
			}
		}
	}
}

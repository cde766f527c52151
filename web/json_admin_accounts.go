package web

import "github.com/sendlater/sendlater/core"

// The operator's wire shapes of accounts, contacts and the audit log (the
// admin socket, the CLI's --json).

// CreatedUserJSON is a user an operator created and, without a password,
// the one-time link with which the user chooses one.
type CreatedUserJSON struct {
	User *UserJSON `json:"user"`
	Link string    `json:"link,omitempty"`
}

// ContactJSON is a contact form submission.
type ContactJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Message   string `json:"message"`
	CreatedAt int64  `json:"createdAt"`
}

// NewContactJSON is c on the wire.
func NewContactJSON(c *core.ContactSubmission) ContactJSON {
	return ContactJSON{ID: c.ID, Name: c.Name, Email: c.Email, Message: c.Message, CreatedAt: millis(c.CreatedAt)}
}

// Core is the submission j describes.
func (j ContactJSON) Core() *core.ContactSubmission {
	return &core.ContactSubmission{ID: j.ID, Name: j.Name, Email: j.Email, Message: j.Message, CreatedAt: fromMillis(j.CreatedAt)}
}

// AuditEntryJSON is one entry of the audit log.
type AuditEntryJSON struct {
	ID     string `json:"id"`
	At     int64  `json:"at"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Target string `json:"target"`
	Detail string `json:"detail"`
}

// NewAuditEntryJSON is e on the wire.
func NewAuditEntryJSON(e *core.AuditEntry) AuditEntryJSON {
	return AuditEntryJSON{ID: e.ID, At: millis(e.At), Actor: e.Actor, Action: e.Action, Target: e.Target, Detail: e.Detail}
}

// Core is the entry j describes.
func (j AuditEntryJSON) Core() *core.AuditEntry {
	return &core.AuditEntry{ID: j.ID, At: fromMillis(j.At), Actor: j.Actor, Action: j.Action, Target: j.Target, Detail: j.Detail}
}

// Core is the export j describes, as far as the wire keeps it (a pending
// link's code is only known to be pending).
func (j *AccountExportJSON) Core() *core.AccountExport {
	u := j.User
	x := &core.AccountExport{
		ExportedAt: fromMillis(j.ExportedAt),
		User: core.User{ID: u.UID, Email: u.Email, EmailVerified: u.EmailVerified, Name: u.Name, Picture: u.Picture,
			Timezone: u.Timezone, Providers: u.Providers, StripeCustomerID: u.StripeCustomerID,
			StripePriceID: u.StripePriceID, StripeSubscriptionStatus: u.StripeSubscriptionStatus,
			CreatedAt: fromMillis(u.CreatedAt), UpdatedAt: fromMillis(u.UpdatedAt)},
		HasPassword: u.HasPassword,
		Plan:        u.PlanID,
		Messages: each(j.Messages, func(m ExportedMessageJSON) *core.Message {
			c := m.MessageJSON.Core()
			c.UpdatedAt = fromMillis(m.UpdatedAt)
			return c
		}),
		AccessTokens: each(j.AccessTokens, func(t AccessTokenJSON) core.AccessTokenInfo {
			return core.AccessTokenInfo{ID: t.ID, Name: t.Name, CreatedAt: fromMillis(t.CreatedAt), LastUsedAt: fromMillis(t.LastUsedAt)}
		}),
		LinkedAccounts: each(j.LinkedAccounts, func(l ExportedLinkJSON) *core.ProviderLink {
			p := &core.ProviderLink{Provider: l.Provider, Subject: l.Subject, UserID: u.UID, Email: l.Email, CreatedAt: fromMillis(l.LinkedAt)}
			if !l.Confirmed {
				p.PendingCodeHash = "pending"
			}
			return p
		}),
	}
	x.Events = make(map[string][]*core.MessageEvent, len(j.Messages))
	for _, m := range j.Messages {
		x.Events[m.ID] = eventsCore(m.ID, m.Events)
	}
	return x
}

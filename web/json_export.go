package web

import "github.com/sendlater/sendlater/core"

// AccountExportJSON is GET /api/me/export: everything stored about a user.
// Secrets (password hash, token hashes, postpone codes) stay out.
type AccountExportJSON struct {
	ExportedAt     int64                 `json:"exportedAt"`
	User           ExportedUserJSON      `json:"user"`
	Messages       []ExportedMessageJSON `json:"messages"`
	AccessTokens   []AccessTokenJSON     `json:"accessTokens"`
	LinkedAccounts []ExportedLinkJSON    `json:"linkedAccounts"`
	// Files are the records of the user's files (GET /api/me/export;
	// not in the operator's export).
	Files []ExportedFileJSON `json:"files,omitempty"`
}

// ExportedFileJSON is a file's record in the export; Path is where its
// bytes are in the zip form ("" in the JSON form, and for an upload not
// complete).
type ExportedFileJSON struct {
	*FileJSON
	Path string `json:"path,omitempty"`
}

// ExportedLinkJSON is a linked provider account with the provider's id of
// it.
type ExportedLinkJSON struct {
	LinkedAccountJSON
	Subject string `json:"subject"`
}

// ExportedUserJSON is the stored profile.
type ExportedUserJSON struct {
	UID                      string      `json:"uid"`
	Email                    string      `json:"email"`
	EmailVerified            bool        `json:"emailVerified"`
	Name                     string      `json:"name"`
	Picture                  string      `json:"picture"`
	Timezone                 string      `json:"timezone"`
	Providers                []string    `json:"providers"`
	HasPassword              bool        `json:"hasPassword"`
	PlanID                   core.PlanID `json:"planId"`
	StripeCustomerID         string      `json:"stripeCustomerId"`
	StripePriceID            string      `json:"stripePriceId"`
	StripeSubscriptionStatus string      `json:"stripeSubscriptionStatus"`
	CreatedAt                int64       `json:"createdAt"`
	UpdatedAt                int64       `json:"updatedAt"`
}

// ExportedMessageJSON is one message, decrypted, as the API shows it, with
// when it last changed.
type ExportedMessageJSON struct {
	*MessageJSON
	UpdatedAt int64 `json:"updatedAt"`
	// Events are its timeline, oldest first.
	Events []EventJSON `json:"events"`
}

// NewAccountExportJSON is x on the wire.
func NewAccountExportJSON(x *core.AccountExport) *AccountExportJSON {
	u := &x.User
	providers := u.Providers
	if providers == nil {
		providers = []string{}
	}
	out := &AccountExportJSON{
		ExportedAt: millis(x.ExportedAt),
		User: ExportedUserJSON{
			UID: u.ID, Email: u.Email, EmailVerified: u.EmailVerified, Name: u.Name, Picture: u.Picture,
			Timezone: u.Timezone, Providers: providers, HasPassword: x.HasPassword, PlanID: x.Plan,
			StripeCustomerID: u.StripeCustomerID, StripePriceID: u.StripePriceID,
			StripeSubscriptionStatus: u.StripeSubscriptionStatus,
			CreatedAt:                millis(u.CreatedAt), UpdatedAt: millis(u.UpdatedAt),
		},
		Messages: each(x.Messages, func(m *core.Message) ExportedMessageJSON {
			return ExportedMessageJSON{MessageJSON: NewMessageJSON(m), UpdatedAt: millis(m.UpdatedAt), Events: EventsJSON(x.Events[m.ID])}
		}),
		AccessTokens: each(x.AccessTokens, NewAccessTokenJSON),
		LinkedAccounts: each(x.LinkedAccounts, func(l *core.ProviderLink) ExportedLinkJSON {
			return ExportedLinkJSON{LinkedAccountJSON: NewLinkedAccountJSON(l), Subject: l.Subject}
		}),
	}
	return out
}

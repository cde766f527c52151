package web

import "github.com/sendlater/sendlater/core"

// AccountExportJSON is GET /api/me/export: everything stored about a user.
// Secrets (password hash, token hashes, postpone codes) stay out.
type AccountExportJSON struct {
	ExportedAt   int64                 `json:"exportedAt"`
	User         ExportedUserJSON      `json:"user"`
	Messages     []ExportedMessageJSON `json:"messages"`
	AccessTokens []AccessTokenJSON     `json:"accessTokens"`
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

// ExportedMessageJSON is one message, decrypted, with its delivery record.
type ExportedMessageJSON struct {
	ID             string             `json:"id"`
	Title          string             `json:"title"`
	Name           string             `json:"name"`
	Recipient      string             `json:"recipient"`
	Message        string             `json:"message"`
	Interval       core.Interval      `json:"interval"`
	SendDate       int64              `json:"sendDate"`
	IsActive       bool               `json:"isActive"`
	Featured       bool               `json:"featured"`
	WebhookURL     string             `json:"webhookUrl,omitempty"`
	Status         core.MessageStatus `json:"status"`
	CreatedAt      int64              `json:"createdAt"`
	UpdatedAt      int64              `json:"updatedAt"`
	ReminderSentAt int64              `json:"reminderSentAt,omitempty"`
	DeliveredAt    int64              `json:"deliveredAt,omitempty"`
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
		Messages:     make([]ExportedMessageJSON, 0, len(x.Messages)),
		AccessTokens: make([]AccessTokenJSON, 0, len(x.AccessTokens)),
	}
	for _, m := range x.Messages {
		out.Messages = append(out.Messages, ExportedMessageJSON{
			ID: m.ID, Title: m.Title, Name: m.Name, Recipient: m.Recipient, Message: m.Body,
			Interval: m.Interval, SendDate: millis(m.SendDate), IsActive: m.IsActive, Featured: m.Featured,
			WebhookURL: m.WebhookURL, Status: m.DisplayStatus(), CreatedAt: millis(m.CreatedAt),
			UpdatedAt: millis(m.UpdatedAt), ReminderSentAt: millis(m.ReminderSentAt), DeliveredAt: millis(m.DeliveredAt),
		})
	}
	for _, t := range x.AccessTokens {
		out.AccessTokens = append(out.AccessTokens, NewAccessTokenJSON(t))
	}
	return out
}

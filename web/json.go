package web

import (
	"time"

	"github.com/sendlater/sendlater/core"
)

// millis is a time as milliseconds since the epoch, as API.md sends times;
// the zero time is 0.
func millis(t time.Time) int64 { return core.Millis(t) }

func optMillis(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func fromOptMillis(ms *int64) time.Time {
	if ms == nil {
		return time.Time{}
	}
	return fromMillis(*ms)
}

// messageJSON is a message on the wire (API.md). The admin fields are only
// filled on the admin socket. The postpone code never leaves the server.
type messageJSON struct {
	ID             string             `json:"id"`
	Owner          string             `json:"owner"`
	Title          string             `json:"title"`
	Name           string             `json:"name"`
	Recipient      string             `json:"recipient"`
	Message        string             `json:"message"`
	Interval       core.Interval      `json:"interval"`
	SendDate       int64              `json:"sendDate"`
	IsActive       bool               `json:"isActive"`
	Featured       bool               `json:"featured"`
	WebhookURL     string             `json:"webhookUrl,omitempty"`
	CreatedAt      int64              `json:"createdAt"`
	Status         core.MessageStatus `json:"status"`
	ReminderSentAt *int64             `json:"reminderSentAt,omitempty"`
	DeliveredAt    *int64             `json:"deliveredAt,omitempty"`

	*AdminMessageFields
}

// AdminMessageFields are the delivery details only the admin socket shows.
type AdminMessageFields struct {
	UpdatedAt     int64              `json:"updatedAt"`
	State         core.MessageStatus `json:"state"` // the stored status, paused or not
	Attempts      int                `json:"attempts"`
	LastError     string             `json:"lastError,omitempty"`
	NextAttemptAt *int64             `json:"nextAttemptAt,omitempty"`
	LeaseUntil    *int64             `json:"leaseUntil,omitempty"`
	DueAt         *int64             `json:"dueAt,omitempty"`
	RemindAt      *int64             `json:"remindAt,omitempty"`
}

func newMessageJSON(m *core.Message) *messageJSON {
	return &messageJSON{
		ID: m.ID, Owner: m.Owner, Title: m.Title, Name: m.Name, Recipient: m.Recipient,
		Message: m.Body, Interval: m.Interval, SendDate: millis(m.SendDate), IsActive: m.IsActive,
		Featured: m.Featured, WebhookURL: m.WebhookURL, CreatedAt: millis(m.CreatedAt),
		Status: m.DisplayStatus(), ReminderSentAt: optMillis(m.ReminderSentAt),
		DeliveredAt: optMillis(m.DeliveredAt),
	}
}

func newAdminMessageJSON(m *core.Message) *messageJSON {
	j := newMessageJSON(m)
	j.AdminMessageFields = &AdminMessageFields{
		UpdatedAt: millis(m.UpdatedAt), State: m.Status, Attempts: m.Attempts, LastError: m.LastError,
		NextAttemptAt: optMillis(m.NextAttemptAt), LeaseUntil: optMillis(m.LeaseUntil),
		DueAt: optMillis(m.DueAt), RemindAt: optMillis(m.RemindAt),
	}
	return j
}

func (j *messageJSON) message() *core.Message {
	m := &core.Message{
		ID: j.ID, Owner: j.Owner, Title: j.Title, Name: j.Name, Recipient: j.Recipient, Body: j.Message,
		Interval: j.Interval, SendDate: fromMillis(j.SendDate), IsActive: j.IsActive, Featured: j.Featured,
		WebhookURL: j.WebhookURL, CreatedAt: fromMillis(j.CreatedAt), Status: j.Status,
		ReminderSentAt: fromOptMillis(j.ReminderSentAt), DeliveredAt: fromOptMillis(j.DeliveredAt),
	}
	if a := j.AdminMessageFields; a != nil {
		m.UpdatedAt, m.Status, m.Attempts, m.LastError = fromMillis(a.UpdatedAt), a.State, a.Attempts, a.LastError
		m.NextAttemptAt, m.LeaseUntil = fromOptMillis(a.NextAttemptAt), fromOptMillis(a.LeaseUntil)
		m.DueAt, m.RemindAt = fromOptMillis(a.DueAt), fromOptMillis(a.RemindAt)
	}
	return m
}

// userJSON is a user on the admin socket: the profile, never the password hash.
type userJSON struct {
	ID                       string   `json:"id"`
	Email                    string   `json:"email"`
	Name                     string   `json:"name"`
	Picture                  string   `json:"picture"`
	Timezone                 string   `json:"timezone"`
	Providers                []string `json:"providers"`
	EmailVerified            bool     `json:"emailVerified"`
	StripeCustomerID         string   `json:"stripeCustomerId,omitempty"`
	StripePriceID            string   `json:"stripePriceId,omitempty"`
	StripeSubscriptionStatus string   `json:"stripeSubscriptionStatus,omitempty"`
	CreatedAt                int64    `json:"createdAt"`
	UpdatedAt                int64    `json:"updatedAt"`
}

func newUserJSON(u *core.User) *userJSON {
	return &userJSON{
		ID: u.ID, Email: u.Email, Name: u.Name, Picture: u.Picture, Timezone: u.Timezone,
		Providers: u.Providers, EmailVerified: u.EmailVerified, StripeCustomerID: u.StripeCustomerID,
		StripePriceID: u.StripePriceID, StripeSubscriptionStatus: u.StripeSubscriptionStatus,
		CreatedAt: millis(u.CreatedAt), UpdatedAt: millis(u.UpdatedAt),
	}
}

func (j *userJSON) user() *core.User {
	return &core.User{
		ID: j.ID, Email: j.Email, Name: j.Name, Picture: j.Picture, Timezone: j.Timezone,
		Providers: j.Providers, EmailVerified: j.EmailVerified, StripeCustomerID: j.StripeCustomerID,
		StripePriceID: j.StripePriceID, StripeSubscriptionStatus: j.StripeSubscriptionStatus,
		CreatedAt: fromMillis(j.CreatedAt), UpdatedAt: fromMillis(j.UpdatedAt),
	}
}

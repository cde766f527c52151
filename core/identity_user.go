package core

import (
	"context"
	"net/mail"
	"strings"
	"time"
)

// Sign-in providers.
const (
	ProviderPassword = "password"
	ProviderGoogle   = "google"
	ProviderFacebook = "facebook"
	ProviderTwitter  = "twitter"
	ProviderGitHub   = "github"
)

// User is an account and its profile.
type User struct {
	ID                       string
	Email                    string
	Name                     string
	Picture                  string
	Timezone                 string // IANA name, from the browser at sign-up
	PasswordHash             string // argon2id, empty for social-only accounts
	Providers                []string
	EmailVerified            bool
	StripeCustomerID         string
	StripePriceID            string
	StripeSubscriptionStatus string
	// DisabledAt is when an operator disabled the account (zero: enabled);
	// HeldMessages are the messages that were active then, paused until
	// the account is enabled.
	DisabledAt   time.Time
	HeldMessages []string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// HoldSince and HoldUntil are the author's hold ("pause all my
	// messages until"): nothing of theirs is delivered or reminded from
	// HoldSince until HoldUntil (core/message_hold.go). Zero: never held. Kept after
	// the hold ends, so a pass that ran only after it still knows it.
	HoldSince time.Time
	HoldUntil time.Time
	// ReminderLadder are the reminder steps the user added to the 10-day
	// default; ReminderAddress, when set, is a second address that gets
	// the reminders only (Pro and Business; core/delivery_ladder.go). Sealed at rest.
	ReminderLadder  Ladder
	ReminderAddress string
	// ReminderAddressAskedAt is when the second address was last asked to
	// confirm (zero: never, as for an address set before confirmation
	// existed); ReminderAddressConfirmedAt when it followed the link (zero:
	// not confirmed). Setting another address clears both: the new one is
	// asked (core/delivery_reminder_address.go).
	ReminderAddressAskedAt     time.Time
	ReminderAddressConfirmedAt time.Time
	// The second factor (core/identity_totp.go): TOTPSecret is the
	// authenticator app's secret (base32, sealed at rest), pending until
	// TOTPEnabledAt is set by a confirming code; TOTPLastStep is the time
	// step of the last code accepted, so no code is used twice.
	// RecoveryCodes are the hashes of the unused recovery codes.
	TOTPSecret    string
	TOTPEnabledAt time.Time
	TOTPLastStep  int64
	RecoveryCodes []string
}

// HasSecondFactor reports whether signing in to u needs a second factor.
func (u *User) HasSecondFactor() bool { return !u.TOTPEnabledAt.IsZero() }

// Location returns the user's time zone, UTC when unset or unknown.
func (u *User) Location() *time.Location { return LoadLocation(u.Timezone) }

// SessionUser is the user as clients see it (API.md), with what the plan
// rule of SPEC.md section 6 allows now, so that no client copies the rule.
type SessionUser struct {
	UID                      string
	Email                    string
	EmailVerified            bool
	Name                     string
	Picture                  string
	Providers                []string // never nil
	PlanID                   PlanID
	PlanIsActive             bool
	Timezone                 string
	StripeSubscriptionStatus string
	// MessageLimit is how many messages the plan keeps; 0: no limit.
	MessageLimit int
	// CanAddMessage is the rule of the Add Message button: MayAddMessage.
	CanAddMessage bool
	// RecipientLimit is how many recipients a message may have.
	RecipientLimit int
	// HoldUntil is the end of the author's hold while one holds; zero: none.
	HoldUntil time.Time
	// ReminderLadder and ReminderAddress are the reminder settings.
	ReminderLadder  []string // never nil
	ReminderAddress string
	// ReminderAddressState is the second address's consent: "" (none),
	// ReminderAddressUnconfirmed, ReminderAddressConfirmed or
	// ReminderAddressRefused. Session sets the first two; Auth sees a
	// refusal (sessionUserOf).
	ReminderAddressState string
	// TOTP tells whether the authenticator app is on; RecoveryCodes how
	// many unused recovery codes remain.
	TOTP          bool
	RecoveryCodes int
}

// Session derives the session user through the configured price map;
// hasMessages tells whether the user holds any message.
func (u *User) Session(prices PriceMap, hasMessages bool) SessionUser {
	providers := u.Providers
	if providers == nil {
		providers = []string{}
	}
	plan, active := prices.PlanOf(u)
	return SessionUser{
		UID:                      u.ID,
		Email:                    u.Email,
		EmailVerified:            u.EmailVerified,
		Name:                     u.Name,
		Picture:                  u.Picture,
		Providers:                providers,
		PlanID:                   plan,
		PlanIsActive:             active,
		Timezone:                 u.Timezone,
		StripeSubscriptionStatus: u.StripeSubscriptionStatus,
		MessageLimit:             MessageLimit(plan, active),
		CanAddMessage:            MayAddMessage(plan, active, hasMessages),
		RecipientLimit:           RecipientLimit(plan, active),
		ReminderLadder:           u.ReminderLadder.Names(),
		ReminderAddress:          u.ReminderAddress,
		ReminderAddressState:     u.reminderAddressState(),
		TOTP:                     u.HasSecondFactor(),
		RecoveryCodes:            len(u.RecoveryCodes),
	}
}

// NormalizeEmail returns the address part of s, trimmed, with the domain in
// lower case. Email lookups are case-insensitive; see EmailKey.
func NormalizeEmail(s string) string { return strings.TrimSpace(s) }

// EmailKey is the case-insensitive key under which an email is indexed.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// parseAddress is the address part of s as net/mail reads it, refusing a
// display name.
func parseAddress(s string) (string, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return "", err
	}
	if a.Name != "" {
		return "", Errorf(EInvalid, "an address with a display name")
	}
	return a.Address, nil
}

// UserFilter selects users for listing.
type UserFilter struct {
	Email  string // exact, case-insensitive
	Offset int
	Limit  int // 0: all
}

// UserStore persists users. Implementations return EUserNotFound and
// EEmailInUse as *Error codes.
type UserStore interface {
	CreateUser(ctx context.Context, u *User) error
	FindUserByID(ctx context.Context, id string) (*User, error)
	FindUserByEmail(ctx context.Context, email string) (*User, error)
	// UpdateUser reads the user, applies fn and writes it back in one
	// transaction; fn's error aborts the update.
	UpdateUser(ctx context.Context, id string, fn func(u *User) error) (*User, error)
	// DeleteUser deletes the user and every message they own.
	DeleteUser(ctx context.Context, id string) error
	ListUsers(ctx context.Context, f UserFilter) ([]*User, int, error)
}

package web

import "github.com/sendlater/sendlater/core"

// SessionUserJSON is the session user of API.md, plus what the plan rule
// allows now: messageLimit (null: no limit) and canAddMessage.
type SessionUserJSON struct {
	UID                      string      `json:"uid"`
	Email                    string      `json:"email"`
	EmailVerified            bool        `json:"emailVerified"`
	Name                     string      `json:"name"`
	Picture                  string      `json:"picture"`
	Providers                []string    `json:"providers"`
	PlanID                   core.PlanID `json:"planId"`
	PlanIsActive             bool        `json:"planIsActive"`
	Timezone                 string      `json:"timezone"`
	StripeSubscriptionStatus string      `json:"stripeSubscriptionStatus"`
	MessageLimit             *int        `json:"messageLimit"`
	CanAddMessage            bool        `json:"canAddMessage"`
	RecipientLimit           int         `json:"recipientLimit"`
	// HoldUntil is the end of the author's hold while one holds (ms since
	// the epoch); null: not held.
	HoldUntil *int64 `json:"holdUntil"`
	// ReminderLadder are the reminder steps added to the 10-day default
	// ("3d", "1d", "2h"); ReminderAddress the second reminder address, ""
	// when none.
	ReminderLadder  []string `json:"reminderLadder"`
	ReminderAddress string   `json:"reminderAddress"`
	// ReminderAddressState is the second address's consent:
	// "unconfirmed", "confirmed" or "refused"; "" when none.
	ReminderAddressState string `json:"reminderAddressState"`
	// TOTP tells whether sign-in asks for an authenticator app's code;
	// RecoveryCodes how many unused recovery codes remain.
	TOTP          bool `json:"totp"`
	RecoveryCodes int  `json:"recoveryCodes"`
}

// NewSessionUserJSON is su on the wire.
func NewSessionUserJSON(su *core.SessionUser) *SessionUserJSON {
	j := &SessionUserJSON{
		UID: su.UID, Email: su.Email, EmailVerified: su.EmailVerified, Name: su.Name, Picture: su.Picture,
		Providers: su.Providers, PlanID: su.PlanID, PlanIsActive: su.PlanIsActive, Timezone: su.Timezone,
		StripeSubscriptionStatus: su.StripeSubscriptionStatus, CanAddMessage: su.CanAddMessage,
		RecipientLimit: su.RecipientLimit, ReminderLadder: su.ReminderLadder, ReminderAddress: su.ReminderAddress,
		ReminderAddressState: su.ReminderAddressState, TOTP: su.TOTP, RecoveryCodes: su.RecoveryCodes,
	}
	if j.ReminderLadder == nil {
		j.ReminderLadder = []string{}
	}
	if su.MessageLimit > 0 {
		limit := su.MessageLimit
		j.MessageLimit = &limit
	}
	if !su.HoldUntil.IsZero() {
		ms := millis(su.HoldUntil)
		j.HoldUntil = &ms
	}
	return j
}

// Core is the session user j describes.
func (j *SessionUserJSON) Core() *core.SessionUser {
	su := &core.SessionUser{
		UID: j.UID, Email: j.Email, EmailVerified: j.EmailVerified, Name: j.Name, Picture: j.Picture,
		Providers: j.Providers, PlanID: j.PlanID, PlanIsActive: j.PlanIsActive, Timezone: j.Timezone,
		StripeSubscriptionStatus: j.StripeSubscriptionStatus, CanAddMessage: j.CanAddMessage,
		RecipientLimit: j.RecipientLimit, ReminderLadder: j.ReminderLadder, ReminderAddress: j.ReminderAddress,
		ReminderAddressState: j.ReminderAddressState, TOTP: j.TOTP, RecoveryCodes: j.RecoveryCodes,
	}
	if su.ReminderLadder == nil {
		su.ReminderLadder = []string{}
	}
	if su.Providers == nil {
		su.Providers = []string{}
	}
	if j.MessageLimit != nil {
		su.MessageLimit = *j.MessageLimit
	}
	if j.HoldUntil != nil {
		su.HoldUntil = fromMillis(*j.HoldUntil)
	}
	return su
}

// UserJSON is a user as an operator sees it (the admin socket, the CLI's
// --json): the profile and the plan, never the password hash.
type UserJSON struct {
	ID                       string      `json:"id"`
	Email                    string      `json:"email"`
	Name                     string      `json:"name"`
	Picture                  string      `json:"picture"`
	Timezone                 string      `json:"timezone"`
	Providers                []string    `json:"providers"`
	EmailVerified            bool        `json:"emailVerified"`
	Plan                     core.PlanID `json:"plan"`
	PlanIsActive             bool        `json:"planIsActive"`
	StripeCustomerID         string      `json:"stripeCustomerId,omitempty"`
	StripePriceID            string      `json:"stripePriceId,omitempty"`
	StripeSubscriptionStatus string      `json:"stripeSubscriptionStatus,omitempty"`
	// DisabledAt is when an operator disabled the account (absent:
	// enabled); HeldMessages are the messages held paused until enabled.
	DisabledAt   int64    `json:"disabledAt,omitempty"`
	HeldMessages []string `json:"heldMessages,omitempty"`
	CreatedAt    int64    `json:"createdAt"`
	UpdatedAt    int64    `json:"updatedAt"`
	// HoldSince and HoldUntil are the user's last hold (ms; absent: never
	// held); it holds while holdUntil is ahead.
	HoldSince int64 `json:"holdSince,omitempty"`
	HoldUntil int64 `json:"holdUntil,omitempty"`
	// TOTPEnabledAt is when the authenticator app was turned on (ms;
	// absent: off); RecoveryCodes how many unused recovery codes remain.
	TOTPEnabledAt int64 `json:"totpEnabledAt,omitempty"`
	RecoveryCodes int   `json:"recoveryCodes,omitempty"`
}

// NewUserJSON is u on the wire, its plan derived through prices.
func NewUserJSON(u *core.User, prices core.PriceMap) *UserJSON {
	plan, active := prices.PlanOf(u)
	providers := u.Providers
	if providers == nil {
		providers = []string{}
	}
	return &UserJSON{
		ID: u.ID, Email: u.Email, Name: u.Name, Picture: u.Picture, Timezone: u.Timezone,
		Providers: providers, EmailVerified: u.EmailVerified, Plan: plan, PlanIsActive: active,
		StripeCustomerID: u.StripeCustomerID, StripePriceID: u.StripePriceID,
		StripeSubscriptionStatus: u.StripeSubscriptionStatus,
		DisabledAt:               millis(u.DisabledAt), HeldMessages: u.HeldMessages,
		CreatedAt: millis(u.CreatedAt), UpdatedAt: millis(u.UpdatedAt),
		HoldSince: millis(u.HoldSince), HoldUntil: millis(u.HoldUntil),
		TOTPEnabledAt: millis(u.TOTPEnabledAt), RecoveryCodes: len(u.RecoveryCodes),
	}
}

// Core is the user j describes (the plan is derived, not stored).
func (j *UserJSON) Core() *core.User {
	return &core.User{
		ID: j.ID, Email: j.Email, Name: j.Name, Picture: j.Picture, Timezone: j.Timezone,
		Providers: j.Providers, EmailVerified: j.EmailVerified, StripeCustomerID: j.StripeCustomerID,
		StripePriceID: j.StripePriceID, StripeSubscriptionStatus: j.StripeSubscriptionStatus,
		DisabledAt: fromMillis(j.DisabledAt), HeldMessages: j.HeldMessages,
		CreatedAt: fromMillis(j.CreatedAt), UpdatedAt: fromMillis(j.UpdatedAt),
		HoldSince: fromMillis(j.HoldSince), HoldUntil: fromMillis(j.HoldUntil),
		TOTPEnabledAt: fromMillis(j.TOTPEnabledAt),
		RecoveryCodes: emptyHashes(j.RecoveryCodes),
	}
}

// emptyHashes stands for n recovery codes, of which only the number
// travels: n empty hashes, nil for none.
func emptyHashes(n int) []string {
	if n <= 0 {
		return nil
	}
	return make([]string, n)
}

// AccessTokenJSON is a personal access token as its owner sees it, without
// the secret.
type AccessTokenJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	CreatedAt  int64  `json:"createdAt"`
	LastUsedAt int64  `json:"lastUsedAt,omitempty"`
	// Scopes are what the token may do (docs/api.md, Access token scopes).
	Scopes []string `json:"scopes"`
	// MadeBeforeScopes marks a token made before tokens had scopes: it has
	// every scope.
	MadeBeforeScopes bool `json:"madeBeforeScopes,omitempty"`
}

// NewAccessTokenJSON is t on the wire.
func NewAccessTokenJSON(t core.AccessTokenInfo) AccessTokenJSON {
	return AccessTokenJSON{ID: t.ID, Name: t.Name, CreatedAt: millis(t.CreatedAt), LastUsedAt: millis(t.LastUsedAt),
		Scopes: t.Scopes, MadeBeforeScopes: t.MadeBeforeScopes}
}

// Core is the token j describes.
func (j AccessTokenJSON) Core() core.AccessTokenInfo {
	return core.AccessTokenInfo{ID: j.ID, Name: j.Name, CreatedAt: fromMillis(j.CreatedAt), LastUsedAt: fromMillis(j.LastUsedAt),
		Scopes: j.Scopes, MadeBeforeScopes: j.MadeBeforeScopes}
}

// CreatedTokenJSON is a new personal access token with its secret, which no
// later reply shows again.
type CreatedTokenJSON struct {
	AccessTokenJSON
	Token string `json:"token"`
}

// ActionInfoJSON is what an email action code is about.
type ActionInfoJSON struct {
	Mode  string `json:"mode"`
	Email string `json:"email"`
}

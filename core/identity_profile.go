package core

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on profile fields and personal access tokens.
const (
	MaxPictureURLLen    = 2048
	MaxTokenNameLen     = 100
	MaxAccessTokens     = 50
	AccessTokenPrefix   = "sl_pat_"
	tokenLastUsedStride = 5 * time.Minute // LastUsedAt is written at most this often
)

// ProfileUpdate is a partial edit of the profile; nil fields are left alone.
type ProfileUpdate struct {
	Name     *string
	Email    *string
	Picture  *string // an http(s) URL, or empty to remove it
	Timezone *string // an IANA name
}

// Validate checks the fields the update sets, with the messages of SPEC.md
// section 5 for the profile form.
func (up *ProfileUpdate) Validate() error {
	f := map[string]string{}
	if up.Name != nil {
		validateProfileName(f, *up.Name, true)
	}
	if up.Email != nil {
		validateEmail(f, "email", NormalizeEmail(*up.Email))
	}
	if up.Picture != nil && *up.Picture != "" && !validPictureURL(*up.Picture) {
		f["picture"] = "The picture must be an http or https URL"
	}
	if up.Timezone != nil && !validTimezone(*up.Timezone) {
		f["timezone"] = "Please choose a valid time zone"
	}
	return ValidationError(f)
}

func validPictureURL(s string) bool { return validHTTPURL(s, MaxPictureURLLen) }

// validHTTPURL reports whether s is an absolute http(s) URL of at most max
// bytes, without credentials in it.
func validHTTPURL(s string, max int) bool {
	if len(s) > max {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// UpdateProfile edits the identity's profile. Changing the email needs a
// recent login; the new address gets a verification email and the old one a
// notice with a link that puts it back (both valid three days).
func (a *Auth) UpdateProfile(ctx context.Context, id *Identity, up ProfileUpdate) (*User, error) {
	a.init()
	if err := up.Validate(); err != nil {
		return nil, err
	}
	before, err := a.User(ctx, id)
	if err != nil {
		return nil, err
	}
	var newEmail string
	if up.Email != nil && NormalizeEmail(*up.Email) != before.Email {
		if err := a.RequireRecentLogin(id); err != nil {
			return nil, err
		}
		newEmail = NormalizeEmail(*up.Email)
	}
	var oldEmail string
	u, err := a.Users.UpdateUser(ctx, id.UserID, func(u *User) error {
		if up.Name != nil {
			u.Name = strings.TrimSpace(*up.Name)
		}
		if up.Picture != nil {
			u.Picture = *up.Picture
		}
		if up.Timezone != nil {
			u.Timezone = *up.Timezone
		}
		if newEmail != "" {
			oldEmail = u.Email
			u.Email = newEmail
			u.EmailVerified = false
		}
		u.UpdatedAt = a.Clock.Now()
		return nil
	})
	if ErrorCode(err) == EEmailInUse {
		return nil, errEmailInUse()
	}
	if err != nil {
		return nil, tokenError(err)
	}
	if newEmail != "" {
		if err := a.sendEmailChange(ctx, u, oldEmail); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// sendEmailChange tells both addresses about an email change.
func (a *Auth) sendEmailChange(ctx context.Context, u *User, oldEmail string) error {
	if err := a.sendActionEmail(ctx, ModeVerifyEmail, u, u.Email); err != nil {
		return err
	}
	link, err := a.newActionCode(ctx, ModeRecoverEmail, u, u.Email, oldEmail)
	if err != nil {
		return err
	}
	e, err := a.Emails.EmailChanged(EmailChangedEmail{
		To:          Address{Name: u.Name, Address: oldEmail},
		NewEmail:    u.Email,
		RecoverLink: link,
	})
	if err != nil {
		return err
	}
	return a.Mailer.Send(ctx, e)
}

// ChangePassword sets a new password (recent login). Every other session
// and every personal access token ends; this session goes on.
func (a *Auth) ChangePassword(ctx context.Context, id *Identity, password string) error {
	a.init()
	if err := CheckPassword("password", password); err != nil {
		return err
	}
	if err := a.RequireRecentLogin(id); err != nil {
		return err
	}
	hash, err := a.hashPassword(ctx, password)
	if err != nil {
		return err
	}
	_, err = a.Users.UpdateUser(ctx, id.UserID, func(u *User) error {
		setPassword(u, hash)
		u.UpdatedAt = a.Clock.Now()
		return nil
	})
	if err != nil {
		return tokenError(err)
	}
	return a.endEverySession(ctx, id.UserID, id.SessionID)
}

// DeleteAccount deletes the user, every message they own, their sessions and
// their personal access tokens (recent login).
func (a *Auth) DeleteAccount(ctx context.Context, id *Identity) error {
	if err := a.RequireRecentLogin(id); err != nil {
		return err
	}
	if err := a.Users.DeleteUser(ctx, id.UserID); err != nil {
		return tokenError(err)
	}
	return a.endEverySession(ctx, id.UserID, "")
}

// AccountExport is everything stored about a user, as GET /api/me/export
// returns it. Secrets (password hash, token hashes, postpone codes) stay out.
// Times are milliseconds since the epoch.
type AccountExport struct {
	ExportedAt   int64             `json:"exportedAt"`
	User         ExportedUser      `json:"user"`
	Messages     []ExportedMessage `json:"messages"`
	AccessTokens []AccessTokenInfo `json:"accessTokens"`
}

// ExportedUser is the stored profile.
type ExportedUser struct {
	UID                      string   `json:"uid"`
	Email                    string   `json:"email"`
	EmailVerified            bool     `json:"emailVerified"`
	Name                     string   `json:"name"`
	Picture                  string   `json:"picture"`
	Timezone                 string   `json:"timezone"`
	Providers                []string `json:"providers"`
	HasPassword              bool     `json:"hasPassword"`
	PlanID                   PlanID   `json:"planId"`
	StripeCustomerID         string   `json:"stripeCustomerId"`
	StripePriceID            string   `json:"stripePriceId"`
	StripeSubscriptionStatus string   `json:"stripeSubscriptionStatus"`
	CreatedAt                int64    `json:"createdAt"`
	UpdatedAt                int64    `json:"updatedAt"`
}

// ExportedMessage is one message, decrypted, with its delivery record.
type ExportedMessage struct {
	ID             string        `json:"id"`
	Title          string        `json:"title"`
	Name           string        `json:"name"`
	Recipient      string        `json:"recipient"`
	Message        string        `json:"message"`
	Interval       Interval      `json:"interval"`
	SendDate       int64         `json:"sendDate"`
	IsActive       bool          `json:"isActive"`
	Featured       bool          `json:"featured"`
	WebhookURL     string        `json:"webhookUrl,omitempty"`
	Status         MessageStatus `json:"status"`
	CreatedAt      int64         `json:"createdAt"`
	UpdatedAt      int64         `json:"updatedAt"`
	ReminderSentAt int64         `json:"reminderSentAt,omitempty"`
	DeliveredAt    int64         `json:"deliveredAt,omitempty"`
}

// AccessTokenInfo is a personal access token as its owner sees it, without
// the secret.
type AccessTokenInfo struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	CreatedAt  int64  `json:"createdAt"`
	LastUsedAt int64  `json:"lastUsedAt,omitempty"`
}

// Millis returns t in milliseconds since the epoch, 0 for the zero time.
func Millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Info returns the token without its hash.
func (t *AccessToken) Info() AccessTokenInfo {
	return AccessTokenInfo{ID: t.ID, Name: t.Name, CreatedAt: Millis(t.CreatedAt), LastUsedAt: Millis(t.LastUsedAt)}
}

// Export gathers everything stored about the identity's user.
func (a *Auth) Export(ctx context.Context, id *Identity) (*AccountExport, error) {
	u, err := a.User(ctx, id)
	if err != nil {
		return nil, err
	}
	ms, _, err := a.Messages.ListMessages(ctx, MessageFilter{Owner: u.ID})
	if err != nil {
		return nil, err
	}
	ts, err := a.AccessTokens.ListAccessTokens(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	providers := u.Providers
	if providers == nil {
		providers = []string{}
	}
	x := &AccountExport{
		ExportedAt: Millis(a.Clock.Now()),
		User: ExportedUser{
			UID:                      u.ID,
			Email:                    u.Email,
			EmailVerified:            u.EmailVerified,
			Name:                     u.Name,
			Picture:                  u.Picture,
			Timezone:                 u.Timezone,
			Providers:                providers,
			HasPassword:              u.PasswordHash != "",
			PlanID:                   a.Prices.PlanFor(u.StripePriceID),
			StripeCustomerID:         u.StripeCustomerID,
			StripePriceID:            u.StripePriceID,
			StripeSubscriptionStatus: u.StripeSubscriptionStatus,
			CreatedAt:                Millis(u.CreatedAt),
			UpdatedAt:                Millis(u.UpdatedAt),
		},
		Messages:     make([]ExportedMessage, 0, len(ms)),
		AccessTokens: make([]AccessTokenInfo, 0, len(ts)),
	}
	for _, m := range ms {
		x.Messages = append(x.Messages, ExportedMessage{
			ID:             m.ID,
			Title:          m.Title,
			Name:           m.Name,
			Recipient:      m.Recipient,
			Message:        m.Body,
			Interval:       m.Interval,
			SendDate:       Millis(m.SendDate),
			IsActive:       m.IsActive,
			Featured:       m.Featured,
			WebhookURL:     m.WebhookURL,
			Status:         m.DisplayStatus(),
			CreatedAt:      Millis(m.CreatedAt),
			UpdatedAt:      Millis(m.UpdatedAt),
			ReminderSentAt: Millis(m.ReminderSentAt),
			DeliveredAt:    Millis(m.DeliveredAt),
		})
	}
	for _, t := range ts {
		x.AccessTokens = append(x.AccessTokens, t.Info())
	}
	return x, nil
}

// CreateAccessToken makes a personal access token named name and returns it
// with its secret, which is shown this once. A token is a long-lived key to
// the account, so making one needs a recent login.
func (a *Auth) CreateAccessToken(ctx context.Context, id *Identity, name string) (*AccessToken, string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return nil, "", ValidationError(map[string]string{"name": "Please enter a name for the token"})
	case utf8.RuneCountInString(name) > MaxTokenNameLen || strings.ContainsAny(name, "\r\n"):
		return nil, "", ValidationError(map[string]string{"name": "The name must be one line of at most 100 characters"})
	}
	if err := a.RequireRecentLogin(id); err != nil {
		return nil, "", err
	}
	ts, err := a.AccessTokens.ListAccessTokens(ctx, id.UserID)
	if err != nil {
		return nil, "", err
	}
	if len(ts) >= MaxAccessTokens {
		return nil, "", Errorf(EConflict, "You have %d access tokens, the most there may be. Revoke one first.", MaxAccessTokens)
	}
	secret := AccessTokenPrefix + NewSecret()
	t := &AccessToken{
		ID:        NewID(),
		UserID:    id.UserID,
		Name:      name,
		Hash:      HashSecret(secret),
		CreatedAt: a.Clock.Now(),
	}
	if err := a.AccessTokens.CreateAccessToken(ctx, t); err != nil {
		return nil, "", err
	}
	return t, secret, nil
}

// ListAccessTokens lists the identity's personal access tokens.
func (a *Auth) ListAccessTokens(ctx context.Context, id *Identity) ([]*AccessToken, error) {
	return a.AccessTokens.ListAccessTokens(ctx, id.UserID)
}

// RevokeAccessToken deletes one of the identity's personal access tokens.
// Another user's token is not found.
func (a *Auth) RevokeAccessToken(ctx context.Context, id *Identity, tokenID string) error {
	ts, err := a.AccessTokens.ListAccessTokens(ctx, id.UserID)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if t.ID == tokenID {
			return a.deleteAccessToken(ctx, t.ID)
		}
	}
	return errTokenNotFound()
}

func (a *Auth) deleteAccessToken(ctx context.Context, tokenID string) error {
	err := a.AccessTokens.DeleteAccessToken(ctx, tokenID)
	if ErrorCode(err) == ETokenNotFound {
		return errTokenNotFound()
	}
	return err
}

func errTokenNotFound() error {
	return Errorf(ETokenNotFound, "The access token could not be found.")
}

// authenticateAccessToken checks a personal access token and notes its use.
func (a *Auth) authenticateAccessToken(ctx context.Context, secret string) (*Identity, error) {
	t, err := a.AccessTokens.FindAccessTokenByHash(ctx, HashSecret(secret))
	if err != nil {
		return nil, tokenError(err)
	}
	now := a.Clock.Now()
	// Writing on every request would make each one a write transaction.
	if now.Sub(t.LastUsedAt) >= tokenLastUsedStride {
		_, err := a.AccessTokens.UpdateAccessToken(ctx, t.ID, func(t *AccessToken) error {
			t.LastUsedAt = now
			return nil
		})
		if err != nil {
			return nil, tokenError(err)
		}
	}
	return &Identity{UserID: t.UserID, TokenID: t.ID}, nil
}

package core

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ActionInfo is what an action code is about, as the /firebase-action page
// shows it: for recoverEmail, the address that is (or was) restored.
type ActionInfo struct {
	Mode  string
	Email string
}

// actionLink is the SPA's email action page for a code.
func (a *Auth) actionLink(mode, code string) string {
	q := url.Values{"mode": {mode}, "oobCode": {code}}
	return strings.TrimRight(a.BaseURL, "/") + "/firebase-action?" + q.Encode()
}

// newActionCode stores a single-use code for u and returns it. Only the
// code's hash is stored; the code itself travels in the email alone.
func (a *Auth) newActionCode(ctx context.Context, mode string, u *User, email, oldEmail string) (string, error) {
	ttl := EmailCodeTTL
	if mode == ModeResetPassword {
		ttl = ResetCodeTTL
	}
	now := a.Clock.Now()
	code := NewSecret()
	err := a.ActionCodes.CreateActionCode(ctx, &ActionCode{
		Hash:      HashSecret(code),
		Mode:      mode,
		UserID:    u.ID,
		Email:     email,
		OldEmail:  oldEmail,
		CreatedAt: now,
		ExpiresAt: now.Add(ttl),
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// actionEmail composes the email of a code: a password reset or a
// verification, to email, which says why (verifyReason).
func (a *Auth) actionEmail(mode string, u *User, email, code, reason string) (*Email, error) {
	d := ActionEmail{To: Address{Name: u.Name, Address: email}, Link: a.actionLink(mode, code), Reason: reason, At: a.Clock.Now()}
	if mode == ModeResetPassword {
		return a.Emails.PasswordReset(d)
	}
	return a.Emails.VerifyEmail(d)
}

// queueActionEmail makes a code for u and queues its email to email.
func (a *Auth) queueActionEmail(ctx context.Context, mode string, u *User, email, reason string) error {
	code, err := a.newActionCode(ctx, mode, u, email, "")
	if err != nil {
		return err
	}
	e, err := a.actionEmail(mode, u, email, code, reason)
	if err != nil {
		return err
	}
	return a.Outbox.Email(ctx, e)
}

// Why a verification email was sent (ActionEmail.Reason). The link
// confirms the account as it was made: the email went to the address
// because of that very sign-up or change, and it says so, with when, and
// that whoever did not do it ignores it.
const (
	reasonResend = "someone signed in to the account made with this address asked for this link again"
	reasonChange = "this address was given as the new address of an account"
)

// signUpReason is the reason of the verification after u's sign-up.
func signUpReason(u *User) string {
	if len(u.Providers) == 0 || u.Providers[0] == ProviderPassword {
		return "an account was started with this address and a password"
	}
	return "an account was started with this address through " + ProviderName(u.Providers[0])
}

// verificationLimits are the mail-bomb limits of a verification email to
// email for u: per address and per account, per hour and per day, whether
// it follows a sign-up, a resend or an email change.
func verificationLimits(u *User, email string) []LimitTake {
	key := EmailKey(email)
	return []LimitTake{
		{LimitVerifyEmailsHour, key}, {LimitVerifyEmailsDay, key},
		{LimitVerifyAccountEmailsHr, u.ID}, {LimitVerifyAccountEmailsDy, u.ID},
	}
}

func errTooManyEmails(wait time.Duration) error {
	return &Error{
		Code:       ETooManyRequests,
		Message:    "We have sent several emails to this address already: please look for them (and in the spam folder), or try again later.",
		RetryAfter: wait,
	}
}

// sendVerification queues the verification email after a sign-up. The
// account exists either way, so a failure, or the mail-bomb limit, is
// logged, not returned.
func (a *Auth) sendVerification(ctx context.Context, u *User) {
	wait, err := a.Limits.Take(ctx, verificationLimits(u, u.Email)...)
	switch {
	case err != nil:
		a.log().Error("queueing the verification email", "uid", u.ID, "err", err)
	case wait > 0:
		a.log().Warn("verification email held back: too many to this address", "uid", u.ID)
	default:
		if err := a.queueActionEmail(ctx, ModeVerifyEmail, u, u.Email, signUpReason(u)); err != nil {
			a.log().Error("queueing the verification email", "uid", u.ID, "err", err)
		}
	}
}

// SendEmailVerification queues a new verification email for the user of
// the identity in ctx, within the mail-bomb limits.
func (a *Auth) SendEmailVerification(ctx context.Context) error {
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return err
	}
	u, err := a.User(ctx)
	if err != nil {
		return err
	}
	if u.EmailVerified {
		return nil
	}
	wait, err := a.Limits.Take(ctx, verificationLimits(u, u.Email)...)
	if err != nil {
		return err
	}
	if wait > 0 {
		return errTooManyEmails(wait)
	}
	return a.queueActionEmail(ctx, ModeVerifyEmail, u, u.Email, reasonResend)
}

// RequestPasswordReset queues a password reset request for an address and
// answers before anything is sent. The request takes the same path whether
// or not an account has the address: the delivery pass looks it up
// (PasswordResetEmail), so neither the answer nor its time tells.
func (a *Auth) RequestPasswordReset(ctx context.Context, email string, c Client) error {
	a.init()
	email = NormalizeEmail(email)
	f := map[string]string{}
	validateEmail(f, "email", email)
	if err := ValidationError(f); err != nil {
		return err
	}
	if err := a.checkClient(ctx, c.Address); err != nil {
		return err
	}
	if err := a.countClient(ctx, c.Address); err != nil {
		return err
	}
	// Enough for a lost email, too few to flood a mailbox; beyond, the
	// answer is the same and nothing is sent.
	key := EmailKey(email)
	if w, err := a.Limits.Take(ctx, LimitTake{LimitResetEmailsHour, key}, LimitTake{LimitResetEmailsDay, key}); err != nil || w > 0 {
		return err
	}
	return a.Outbox.PasswordReset(ctx, email)
}

// PasswordResetEmail makes the reset email (a link valid one hour) of the
// account that has email, or nil when none has: the delivery pass calls it
// for a queued request. It implements PasswordResets.
func (a *Auth) PasswordResetEmail(ctx context.Context, email string) (*Email, error) {
	u, err := a.Users.FindUserByEmail(ctx, email)
	if ErrorCode(err) == EUserNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	code, err := a.newActionCode(ctx, ModeResetPassword, u, u.Email, "")
	if err != nil {
		return nil, err
	}
	return a.actionEmail(ModeResetPassword, u, u.Email, code, "")
}

// ConfirmPasswordReset sets a new password with a reset code. The code is
// used up; every session and personal access token of the account ends.
func (a *Auth) ConfirmPasswordReset(ctx context.Context, code, password string) error {
	a.init()
	if err := CheckPassword("password", password); err != nil {
		return err
	}
	hash := HashSecret(code)
	pending, err := a.findActionCode(ctx, hash, ModeResetPassword)
	if err != nil {
		return err
	}
	if err := a.checkPasswordFor("password", password, pending.Email, ""); err != nil {
		return err
	}
	pwHash, err := a.hashPassword(ctx, password)
	if err != nil {
		return err
	}
	ac, err := a.ActionCodes.UseActionCode(ctx, hash, a.Clock.Now())
	if err != nil {
		return err
	}
	// The link proves the address; an account whose maker never did is
	// given to its owner clean (identity_claim.go).
	switch err := a.claimByReset(ctx, ac, pwHash); {
	case err == nil:
		return nil
	case !errors.Is(err, errNothingToClaim):
		return actionError(err)
	}
	_, err = a.Users.UpdateUser(ctx, ac.UserID, func(u *User) error {
		if EmailKey(u.Email) != EmailKey(ac.Email) {
			return errInvalidActionCode()
		}
		setPassword(u, pwHash)
		// Following the link proved the address.
		u.EmailVerified = true
		u.UpdatedAt = a.Clock.Now()
		return nil
	})
	if err != nil {
		return actionError(err)
	}
	return a.endEverySession(ctx, ac.UserID, "")
}

// setPassword sets the hash and lists the password provider.
func setPassword(u *User, hash string) {
	u.PasswordHash = hash
	if !slices.Contains(u.Providers, ProviderPassword) {
		u.Providers = append(u.Providers, ProviderPassword)
	}
}

// CheckActionCode tells what a code is about without using it.
func (a *Auth) CheckActionCode(ctx context.Context, code string) (*ActionInfo, error) {
	ac, err := a.findActionCode(ctx, HashSecret(code), "")
	if err != nil {
		return nil, err
	}
	return actionInfo(ac), nil
}

// ApplyActionCode uses a verifyEmail, recoverEmail or confirmReminderAddress
// code. verifyEmail marks the address verified; confirmReminderAddress the
// second reminder address confirmed (delivery_reminder_address.go). recoverEmail puts the old address back, ends every
// session and personal access token (someone else may have changed it) and
// sends a password reset email to the restored address.
func (a *Auth) ApplyActionCode(ctx context.Context, code string) (*ActionInfo, error) {
	a.init()
	hash := HashSecret(code)
	ac, err := a.findActionCode(ctx, hash, "")
	if err != nil {
		return nil, err
	}
	if ac.Mode != ModeVerifyEmail && ac.Mode != ModeRecoverEmail && ac.Mode != ModeConfirmReminderAddress {
		return nil, errInvalidActionCode()
	}
	if ac, err = a.ActionCodes.UseActionCode(ctx, hash, a.Clock.Now()); err != nil {
		return nil, err
	}
	if ac.Mode == ModeConfirmReminderAddress {
		return a.confirmReminderAddress(ctx, ac)
	}
	if ac.Mode == ModeVerifyEmail {
		_, err = a.Users.UpdateUser(ctx, ac.UserID, func(u *User) error {
			if EmailKey(u.Email) != EmailKey(ac.Email) {
				return errInvalidActionCode()
			}
			u.EmailVerified = true
			u.UpdatedAt = a.Clock.Now()
			return nil
		})
		if err != nil {
			return nil, actionError(err)
		}
		return actionInfo(ac), nil
	}
	u, err := a.Users.UpdateUser(ctx, ac.UserID, func(u *User) error {
		u.Email = ac.OldEmail
		u.EmailVerified = true
		u.UpdatedAt = a.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, actionError(err)
	}
	if err := a.endEverySession(ctx, u.ID, ""); err != nil {
		return nil, err
	}
	if err := a.queueActionEmail(ctx, ModeResetPassword, u, u.Email, ""); err != nil {
		return nil, err
	}
	return actionInfo(ac), nil
}

// findActionCode finds an unused, unexpired code of mode (any mode when
// empty).
func (a *Auth) findActionCode(ctx context.Context, hash, mode string) (*ActionCode, error) {
	ac, err := a.ActionCodes.FindActionCode(ctx, hash)
	if err != nil {
		return nil, actionError(err)
	}
	switch {
	case !ac.UsedAt.IsZero(), mode != "" && ac.Mode != mode,
		mode == "" && ac.Mode == ModeSecondFactor: // a sign-in's challenge is no email action
		return nil, errInvalidActionCode()
	case !a.Clock.Now().Before(ac.ExpiresAt):
		return nil, Errorf(EExpiredActionCode, "This link has expired. Please ask for a new one.")
	}
	return ac, nil
}

func actionInfo(ac *ActionCode) *ActionInfo {
	if ac.Mode == ModeRecoverEmail {
		return &ActionInfo{Mode: ac.Mode, Email: ac.OldEmail}
	}
	return &ActionInfo{Mode: ac.Mode, Email: ac.Email}
}

// actionError turns a missing code or user into auth/invalid-action-code.
func actionError(err error) error {
	switch ErrorCode(err) {
	case ENotFound, EUserNotFound:
		return errInvalidActionCode()
	}
	return err
}

func errInvalidActionCode() error {
	return Errorf(EInvalidActionCode, "This link is invalid or has already been used.")
}

// endEverySession ends the user's sessions but except, and revokes every
// personal access token: after a password change, reset or email recovery,
// nothing that may have been handed to someone else still works.
func (a *Auth) endEverySession(ctx context.Context, userID, except string) error {
	if err := a.Sessions.DeleteUserSessions(ctx, userID, except); err != nil {
		return err
	}
	ts, err := a.AccessTokens.ListAccessTokens(ctx, userID)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := a.deleteAccessToken(ctx, t.ID); err != nil {
			return err
		}
	}
	return nil
}

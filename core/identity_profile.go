package core

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// MaxPictureURLLen bounds the profile picture's URL.
const MaxPictureURLLen = 2048

// ProfileUpdate is a partial edit of the profile; nil fields are left alone.
type ProfileUpdate struct {
	Name     *string
	Email    *string
	Picture  *string // an http(s) URL, or empty to remove it
	Timezone *string // an IANA name
	// ReminderLadder are the reminder steps added to the 10-day default
	// ("3d", "1d", "2h"); ReminderAddress the second reminder address
	// (Pro and Business), or empty to remove it (core/delivery_ladder.go).
	ReminderLadder  *[]string
	ReminderAddress *string
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
		f["timezone"] = errTimezone
	}
	if up.ReminderLadder != nil {
		if _, err := ParseLadder(*up.ReminderLadder); err != nil {
			f["reminderLadder"] = errLadder
		}
	}
	if up.ReminderAddress != nil && strings.TrimSpace(*up.ReminderAddress) != "" {
		if a := NormalizeEmail(*up.ReminderAddress); len(a) > MaxEmailLen || !ValidEmail(a) {
			f["reminderAddress"] = "Please enter a valid email address"
		}
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

// User returns the user of the identity in ctx.
func (a *Auth) User(ctx context.Context) (*User, error) { return signedInUser(ctx, a.Users) }

// Me returns the user of the identity in ctx as clients see it. With a
// store that keeps generations (UserGenerations) and holds both the users
// and the messages, what it reads (the user, whether they have messages)
// is kept under the user's generation, read first, and read again once a
// committed write of the user or their messages moves it; what depends on
// the time (a hold's end) is worked out at every call.
func (a *Auth) Me(ctx context.Context) (*SessionUser, error) {
	su, _, err := a.MeTerm(ctx)
	return su, err
}

// meGenerations are the generations Me keeps what it reads under: the
// users' store's, when it keeps them and also holds the messages (whether
// the user has any is part of the answer); nil: nothing is kept.
func (a *Auth) meGenerations() UserGenerations {
	if gens, ok := a.Users.(UserGenerations); ok && any(a.Messages) == any(a.Users) {
		return gens
	}
	return nil
}

// MeTerm says how long an answer of Me holds (Auth.MeTerm): while the
// user's generation has not moved from what MeGeneration returned before
// Me read and, unless Until is zero, before Until, the start or the end of
// a hold, which changes the answer without a write. Keep false: the answer
// is not to be kept at all, because it depends on what no generation
// covers (whether the second reminder address refused every email, which
// the recipients' refusals decide) or the store keeps no generations.
type MeTerm struct {
	Until time.Time
	Keep  bool
}

// MeGeneration is the id and the generation of the user of the identity in
// ctx, read before anything of theirs, for a reader that keeps what
// MeTerm returned (the encoded reply of GET /api/me) under it; ok false:
// nothing of Me is to be kept (no one signed in, or the store keeps no
// generations).
func (a *Auth) MeGeneration(ctx context.Context) (userID string, gen uint64, ok bool) {
	id := IdentityFrom(ctx)
	gens := a.meGenerations()
	if id == nil || id.UserID == "" || gens == nil {
		return "", 0, false
	}
	return id.UserID, gens.UserGeneration(id.UserID), true
}

// MeHolds reports whether an answer of Me kept under its generation (which
// the keeper checked) still holds at this time: its term's Until has not
// come. One clock reading, only for a user with a hold.
func (a *Auth) MeHolds(t MeTerm) bool {
	return t.Keep && (t.Until.IsZero() || a.Clock.Now().Before(t.Until))
}

// MeTerm is Me with how long its answer holds (MeTerm).
func (a *Auth) MeTerm(ctx context.Context) (*SessionUser, MeTerm, error) {
	id, err := signedIn(ctx)
	if err != nil {
		return nil, MeTerm{}, err
	}
	gens := a.meGenerations()
	keeps := gens != nil
	var gen uint64
	if keeps {
		gen = gens.UserGeneration(id.UserID)
		if r, ok := a.mine.Get(id.UserID, gen); ok {
			r.user.Providers = slices.Clone(r.user.Providers) // the reply's, not the kept one
			return a.meOf(ctx, &r.user, r.hasMessages, keeps)
		}
	}
	u, err := a.User(ctx)
	if err != nil {
		return nil, MeTerm{}, err
	}
	hasMessages, err := a.hasMessages(ctx, u)
	if err != nil {
		return nil, MeTerm{}, err
	}
	if keeps {
		kept := *u
		kept.Providers = slices.Clone(u.Providers)
		a.mine.Put(id.UserID, gen, meRead{user: kept, hasMessages: hasMessages})
	}
	return a.meOf(ctx, u, hasMessages, keeps)
}

// meOf is Me's answer for u at this time and how long it holds.
func (a *Auth) meOf(ctx context.Context, u *User, hasMessages, keeps bool) (*SessionUser, MeTerm, error) {
	now := a.Clock.Now()
	su := u.Session(a.Prices, hasMessages)
	su.HoldUntil = activeHold(u, now)
	t := MeTerm{Until: holdTurn(u, now), Keep: keeps && (su.ReminderAddress == "" || a.Refused == nil)}
	if err := refusalState(ctx, a.Refused, &su); err != nil {
		return nil, MeTerm{}, err
	}
	return &su, t, nil
}

// holdTurn is when u's hold next starts or ends after now, which changes
// what activeHold says; zero: it never will (no hold, or one past).
func holdTurn(u *User, now time.Time) time.Time {
	switch {
	case u.HoldUntil.IsZero() || !now.Before(u.HoldUntil):
		return time.Time{}
	case now.Before(u.HoldSince):
		return u.HoldSince
	}
	return u.HoldUntil
}

// meRead is what Me read for a user.
type meRead struct {
	user        User
	hasMessages bool
}

// UpdateProfile edits the profile of the identity in ctx. Changing the email
// needs a recent login and stays within the verification emails' mail-bomb
// limits; the new address gets a verification email and the old one a
// notice with a link that puts it back (both valid three days), when the
// old one was verified: an address no one proved is not given back (the
// account was never its owner's, and it is free again to sign up with).
func (a *Auth) UpdateProfile(ctx context.Context, up ProfileUpdate) (*SessionUser, error) {
	a.init()
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return nil, err
	}
	if err := up.Validate(); err != nil {
		return nil, err
	}
	before, err := a.User(ctx)
	if err != nil {
		return nil, err
	}
	var newEmail string
	if up.Email != nil && NormalizeEmail(*up.Email) != before.Email {
		if err := a.RequireRecentLogin(ctx); err != nil {
			return nil, err
		}
		newEmail = NormalizeEmail(*up.Email)
		wait, err := a.Limits.Check(ctx, verificationLimits(before, newEmail)...)
		if err != nil {
			return nil, err
		}
		if wait > 0 {
			return nil, errTooManyEmails(wait)
		}
	}
	if up.ReminderAddress != nil && strings.TrimSpace(*up.ReminderAddress) != "" {
		if plan, active := a.Prices.PlanOf(before); !ReminderAddressAllowed(plan, active) {
			return nil, Errorf(EPlanLimit, "A second reminder address is a Pro feature; upgrade to Pro to add one.")
		}
		// Another address is asked to confirm: within the limits, or
		// not changed at all.
		if addr := NormalizeEmail(*up.ReminderAddress); EmailKey(addr) != EmailKey(before.ReminderAddress) {
			wait, err := a.Limits.Check(ctx, verificationLimits(before, addr)...)
			if err != nil {
				return nil, err
			}
			if wait > 0 {
				return nil, errTooManyEmails(wait)
			}
		}
	}
	var oldEmail string
	var oldVerified, ask bool
	u, err := a.Users.UpdateUser(ctx, before.ID, func(u *User) error {
		if up.ReminderLadder != nil {
			u.ReminderLadder, _ = ParseLadder(*up.ReminderLadder)
		}
		if up.ReminderAddress != nil {
			ask = u.setReminderAddress(NormalizeEmail(*up.ReminderAddress))
		}
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
			oldEmail, oldVerified = u.Email, u.EmailVerified
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
		if err := a.sendEmailChange(ctx, u, oldEmail, oldVerified); err != nil {
			return nil, err
		}
	}
	if ask {
		// The address is set either way; one not asked now (a refusal, a
		// limit reached meanwhile, a failure) shows as waiting, and its
		// owner may ask again (SendReminderAddressConfirmation).
		if asked, err := a.askReminderAddress(ctx, u); err != nil || !asked {
			a.log().Warn("the second reminder address was not asked to confirm", "uid", u.ID, "err", err)
		}
	}
	return a.sessionUser(ctx, u)
}

// sendEmailChange tells both addresses about an email change: the old one
// only when it was verified (UpdateProfile).
func (a *Auth) sendEmailChange(ctx context.Context, u *User, oldEmail string, oldVerified bool) error {
	if _, err := a.Limits.Take(ctx, verificationLimits(u, u.Email)...); err != nil {
		return err
	}
	if err := a.queueActionEmail(ctx, ModeVerifyEmail, u, u.Email, reasonChange); err != nil {
		return err
	}
	if !oldVerified {
		return nil
	}
	code, err := a.newActionCode(ctx, ModeRecoverEmail, u, u.Email, oldEmail)
	if err != nil {
		return err
	}
	e, err := a.Emails.EmailChanged(EmailChangedEmail{
		To:          Address{Name: u.Name, Address: oldEmail},
		NewEmail:    u.Email,
		RecoverLink: a.actionLink(ModeRecoverEmail, code),
	})
	if err != nil {
		return err
	}
	return a.Outbox.Email(ctx, e)
}

// ChangePassword sets a new password for the identity in ctx (recent
// login). Every other session and every personal access token ends; this
// session goes on.
func (a *Auth) ChangePassword(ctx context.Context, password string) error {
	a.init()
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return err
	}
	if err := CheckPassword("password", password); err != nil {
		return err
	}
	if err := a.RequireRecentLogin(ctx); err != nil {
		return err
	}
	id := IdentityFrom(ctx)
	u, err := a.Users.FindUserByID(ctx, id.UserID)
	if err != nil {
		return tokenError(err)
	}
	if err := a.checkPasswordFor("password", password, u.Email, u.Name); err != nil {
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

// DeleteAccount deletes the user of the identity in ctx, every message they
// own, their sessions and their personal access tokens (recent login).
func (a *Auth) DeleteAccount(ctx context.Context) error {
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return err
	}
	if err := a.RequireRecentLogin(ctx); err != nil {
		return err
	}
	id := IdentityFrom(ctx)
	if err := deleting(ctx, a.Files, "", id.UserID, func() error { return a.Users.DeleteUser(ctx, id.UserID) }); err != nil {
		return tokenError(err)
	}
	return a.endEverySession(ctx, id.UserID, "")
}

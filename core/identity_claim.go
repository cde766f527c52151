package core

import (
	"context"
	"errors"
	"time"
)

// Claiming an account: the rule against account pre-hijacking. Anyone can
// sign up with a password under an address that is not theirs; until the
// address is verified, the account is its maker's, not the address's. When
// the owner of the address later proves it some other way than the
// verification link the sign-up sent (a provider that asserts the address
// verified, or a password reset link), the account is given to them clean,
// in one store step (ProviderLinkStore.ClaimAccount): its password, every
// session and access token, every provider link, every pending action code
// and its webhook secret go; its profile and reminder settings start over.
// Its messages, written by someone who had not proved the address, are
// paused right after (pauseClaimed), not deleted: nothing is sent in the
// owner's name unless they resume it, and nothing is lost when the maker
// was the owner (who forgot their password before confirming). The address
// is then told (AccountClaimedEmail). The verification link itself confirms the
// account as made: it went to the address because of that very sign-up,
// and its email says when and how the account was started.

// Claimed counts what claiming an account removed.
type Claimed struct {
	Password     bool // the account had a password
	Sessions     int
	AccessTokens int
	Links        int // provider links, confirmed or pending
	Codes        int // unused action codes made unusable
	Passkeys     int // the maker's passkeys, removed
	Messages     int // paused until the owner resumes them
	// ReminderAddress: a second reminder address was set.
	ReminderAddress bool
}

// AccountClaimedEmail tells an address that the unverified account made
// with it was given to its owner clean, and what went.
type AccountClaimedEmail struct {
	To        Address
	Provider  string // the provider's name the owner signed in with; "" after a password reset
	StartedAt time.Time
	Location  *time.Location
	Messages  int // messages paused
}

// errNothingToClaim aborts a claim of an account that needs none: its
// address was verified meanwhile, or no one ever had a way into it (an
// operator made it without a password, and no provider is linked). The
// usual way (a link, a reset) goes on instead.
var errNothingToClaim = errors.New("nothing to claim")

// nothingToClaim reports whether the account u with links needs no claim.
func nothingToClaim(u *User, links []*ProviderLink) bool {
	return u.EmailVerified || u.PasswordHash == "" && len(links) == 0
}

// cleanAccount makes u the clean account of the address's proven owner:
// verified, without the maker's password, providers, profile, hold or
// reminder settings; its id, address, creation, billing and an operator's
// disabling stay. It returns what of the record it removed.
func cleanAccount(u *User, now time.Time) Claimed {
	c := Claimed{Password: u.PasswordHash != "", ReminderAddress: u.ReminderAddress != ""}
	u.PasswordHash, u.Providers, u.EmailVerified = "", []string{}, true
	u.Name, u.Picture, u.Timezone = "", "", ""
	u.HoldSince, u.HoldUntil = time.Time{}, time.Time{}
	u.ReminderLadder, u.ReminderAddress = 0, ""
	clearSecondFactor(u) // the maker's app and codes must not lock the owner out
	u.UpdatedAt = now
	return c
}

// claimEmail queues the email that tells the address its account was
// claimed. It counts in the address's and the account's verification
// limits (verificationLimits) but is sent beyond them: only the address's
// owner can cause it, once per unverified account, and it is the one
// notice of what was removed. The claim is made either way, so a failure
// is logged.
func (a *Auth) claimEmail(ctx context.Context, u *User, startedAt time.Time, provider string, c *Claimed) {
	for _, t := range verificationLimits(u, u.Email) {
		if _, err := a.Limits.Record(ctx, t.Limit, t.Key); err != nil {
			a.log().Error("counting the account claimed email", "uid", u.ID, "err", err)
		}
	}
	e, err := a.Emails.AccountClaimed(AccountClaimedEmail{
		To: Address{Name: u.Name, Address: u.Email}, Provider: provider, StartedAt: startedAt,
		Location: u.Location(), Messages: c.Messages,
	})
	if err == nil {
		err = a.Outbox.Email(ctx, e)
	}
	if err != nil {
		a.log().Error("queueing the account claimed email", "uid", u.ID, "err", err)
	}
}

// logClaim writes a claim to the log: it is the owner's doing, not an
// operator's, so it is no audit entry.
func (a *Auth) logClaim(u *User, how string, c *Claimed) {
	a.log().Info("an unverified account was given to its address's owner", "uid", u.ID, "by", how,
		"password", c.Password, "sessions", c.Sessions, "tokens", c.AccessTokens, "links", c.Links,
		"codes", c.Codes, "messages", c.Messages)
}

// claim gives the unverified account u to the person who signed in with p,
// a provider asserting u's address verified, and signs them in.
func (s *SocialAuth) claim(ctx context.Context, u *User, p ProviderProfile, cl Client) (*Tokens, error) {
	a := s.Auth
	now := a.Clock.Now()
	startedAt := u.CreatedAt
	l := &ProviderLink{Provider: p.Provider, Subject: p.Subject, UserID: u.ID, Email: p.Email, CreatedAt: now}
	var kept Claimed // what the account held, as fn found it
	u, c, err := a.Links.ClaimAccount(ctx, u.ID, l, now, func(u *User, links []*ProviderLink) error {
		switch {
		case nothingToClaim(u, links):
			return errNothingToClaim
		case EmailKey(u.Email) != EmailKey(p.Email):
			return Errorf(EConflict, "The account changed meanwhile: please sign in again.")
		case u.Disabled():
			return errUserDisabled()
		}
		kept = cleanAccount(u, now)
		u.Providers = []string{p.Provider}
		u.Name, u.Picture = p.Name, p.Picture
		return nil
	})
	if errors.Is(err, errNothingToClaim) {
		if u, err = s.link(ctx, l.UserID, p, ""); err != nil {
			return nil, err
		}
		return a.startSession(ctx, u, cl)
	}
	if err != nil {
		return nil, err
	}
	c.Password, c.ReminderAddress = kept.Password, kept.ReminderAddress
	c.Messages = a.pauseClaimed(ctx, u.ID)
	a.logClaim(u, p.Provider, &c)
	a.claimEmail(ctx, u, startedAt, ProviderName(p.Provider), &c)
	return a.startSession(ctx, u, cl)
}

// claimByReset gives the account of the reset code ac to the owner of its
// address, who just followed the reset link, with the password of pwHash,
// when its address was never verified; else errNothingToClaim.
func (a *Auth) claimByReset(ctx context.Context, ac *ActionCode, pwHash string) error {
	now := a.Clock.Now()
	var startedAt time.Time
	var kept Claimed
	u, c, err := a.Links.ClaimAccount(ctx, ac.UserID, nil, now, func(u *User, links []*ProviderLink) error {
		switch {
		case EmailKey(u.Email) != EmailKey(ac.Email):
			return errInvalidActionCode()
		case nothingToClaim(u, links):
			return errNothingToClaim
		}
		startedAt = u.CreatedAt
		kept = cleanAccount(u, now)
		setPassword(u, pwHash)
		return nil
	})
	if err != nil {
		return err
	}
	c.Password, c.ReminderAddress = kept.Password, kept.ReminderAddress
	c.Messages = a.pauseClaimed(ctx, u.ID)
	a.logClaim(u, ProviderPassword, &c)
	a.claimEmail(ctx, u, startedAt, "", &c)
	return nil
}

// ActorClaim is the timeline's actor of the pause of a claimed account's
// messages.
const ActorClaim = "account confirmed by its address's owner"

// pauseClaimed pauses every message of the claimed account userID that is
// still to be sent, each with a "paused" entry in its timeline, and
// returns how many it paused. It runs just after the claim's transaction:
// a pass that delivers one of them in between sends what was due anyway;
// a failure is logged and leaves that message as it was.
func (a *Auth) pauseClaimed(ctx context.Context, userID string) int {
	ms, _, err := a.Messages.ListMessages(ctx, MessageFilter{Owner: userID})
	if err != nil {
		a.log().Error("pausing a claimed account's messages", "uid", userID, "err", err)
		return 0
	}
	paused := 0
	off := false
	waiting := func(m *Message) bool {
		st := m.DisplayStatus()
		return m.IsActive && (st == StatusScheduled || st == StatusReminded) && m.checkCanChange() == nil
	}
	for _, m := range ms {
		if !waiting(m) {
			continue
		}
		_, err := a.Messages.UpdateMessage(ctx, m.ID, func(m *Message) error {
			if !waiting(m) {
				return errNothingToClaim
			}
			before := *m
			m.IsActive, m.UpdatedAt = false, a.Clock.Now()
			recordEdit(&before, m, MessageUpdate{IsActive: &off}, m.UpdatedAt, ActorClaim)
			return nil
		})
		switch {
		case err == nil:
			paused++
		case !errors.Is(err, errNothingToClaim):
			a.log().Error("pausing a claimed account's message", "uid", userID, "message", m.ID, "err", err)
		}
	}
	return paused
}

package core

// The second reminder address's consent. An address someone else typed
// gets nothing until it says yes: setting it sends it a link to confirm
// (an action code, within the verification emails' mail-bomb limits), and
// until the link is followed the reminders' copies skip it. Every email to
// it (the request and each copy) carries a one-click refusal, as the
// delivery does to recipients; an address that refused gets nothing more,
// not even a new request. An address set before confirmation existed has
// never been asked (ReminderAddressAskedAt zero): the first reminder that
// would have copied it asks it instead (docs/delivery.md says why).

import (
	"context"
	"time"
)

// The second reminder address's states (SessionUser.ReminderAddressState).
const (
	ReminderAddressUnconfirmed = "unconfirmed" // asked (or to be asked), not confirmed yet
	ReminderAddressConfirmed   = "confirmed"
	ReminderAddressRefused     = "refused" // refused every email of the service
)

// AddressRefusals tells whether an address refused every email sent
// through the service (the delivery store: DeliveryStore.AddressRefused).
type AddressRefusals interface {
	AddressRefused(ctx context.Context, email string) (bool, error)
}

// ReminderAddressConfirmed reports whether u has a second reminder address
// that confirmed it wants the reminders.
func (u *User) ReminderAddressConfirmed() bool {
	return u.ReminderAddress != "" && !u.ReminderAddressConfirmedAt.IsZero()
}

// reminderAddressState is the state as the user's record alone tells it;
// a refusal is seen by refusalState.
func (u *User) reminderAddressState() string {
	switch {
	case u.ReminderAddress == "":
		return ""
	case u.ReminderAddressConfirmed():
		return ReminderAddressConfirmed
	}
	return ReminderAddressUnconfirmed
}

// setReminderAddress sets (or, with "", removes) the second address and
// reports whether it is another address, to be asked: another address
// than the one set starts without consent; the same one (in any case)
// keeps its own.
func (u *User) setReminderAddress(addr string) (ask bool) {
	same := EmailKey(addr) == EmailKey(u.ReminderAddress)
	u.ReminderAddress = addr
	if same {
		return false
	}
	u.ReminderAddressAskedAt, u.ReminderAddressConfirmedAt = time.Time{}, time.Time{}
	return addr != ""
}

// refusalState turns su's reminder address state to refused when the
// address refused every email. It is read at every call: a refusal is no
// write of the user's, so no cache keyed by their generation may keep it.
func refusalState(ctx context.Context, r AddressRefusals, su *SessionUser) error {
	if su.ReminderAddress == "" || r == nil {
		return nil
	}
	refused, err := r.AddressRefused(ctx, su.ReminderAddress)
	if err != nil {
		return err
	}
	if refused {
		su.ReminderAddressState = ReminderAddressRefused
	}
	return nil
}

func errReminderAddressRefused() error {
	return Errorf(EInvalid, "This address refused every email sent through this service; please choose another one.")
}

// SendReminderAddressConfirmation sends the second reminder address of the
// user of the identity in ctx a new link to confirm, within the
// verification emails' limits (per address and per account). A confirmed
// address is left alone.
func (a *Auth) SendReminderAddressConfirmation(ctx context.Context) error {
	a.init()
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return err
	}
	u, err := a.User(ctx)
	if err != nil {
		return err
	}
	switch plan, active := a.Prices.PlanOf(u); {
	case u.ReminderAddress == "":
		return Errorf(EInvalid, "There is no second reminder address to confirm.")
	case !ReminderAddressAllowed(plan, active):
		return Errorf(EPlanLimit, "A second reminder address is a Pro feature; upgrade to Pro to add one.")
	}
	if a.Refused != nil {
		if refused, err := a.Refused.AddressRefused(ctx, u.ReminderAddress); err != nil || refused {
			if err == nil {
				err = errReminderAddressRefused()
			}
			return err
		}
	}
	if u.ReminderAddressConfirmed() {
		return nil
	}
	asked, err := a.askReminderAddress(ctx, u)
	if err == nil && !asked {
		return errReminderAddressRefused()
	}
	return err
}

// AskReminderAddress asks u's second reminder address to confirm, when it
// was never asked (set before confirmation existed): the delivery pass
// calls it in place of a copy. The limits and a refusal hold it back
// without an error; it reports whether the request went out.
func (a *Auth) AskReminderAddress(ctx context.Context, u *User) (bool, error) {
	if u.ReminderAddress == "" || !u.ReminderAddressAskedAt.IsZero() || u.ReminderAddressConfirmed() {
		return false, nil
	}
	asked, err := a.askReminderAddress(ctx, u)
	if ErrorCode(err) == ETooManyRequests {
		return false, nil
	}
	return asked, err
}

// askReminderAddress queues the request to confirm to u's second address
// and records when it was asked, within the mail-bomb limits (taken here:
// errTooManyEmails beyond them). An address that refused every email is
// not asked (false).
func (a *Auth) askReminderAddress(ctx context.Context, u *User) (bool, error) {
	addr := u.ReminderAddress
	if a.Refused != nil {
		refused, err := a.Refused.AddressRefused(ctx, addr)
		if err != nil || refused {
			return false, err
		}
	}
	wait, err := a.Limits.Take(ctx, verificationLimits(u, addr)...)
	if err != nil {
		return false, err
	}
	if wait > 0 {
		return false, errTooManyEmails(wait)
	}
	code, err := a.newActionCode(ctx, ModeConfirmReminderAddress, u, addr, "")
	if err != nil {
		return false, err
	}
	d := ReminderAddressEmail{To: Address{Address: addr}, Author: Address{Name: u.Name, Address: u.Email},
		Link: a.actionLink(ModeConfirmReminderAddress, code)}
	if a.Refusals != nil {
		d.UnsubscribeLink = refusalLink(a.BaseURL, a.Refusals, addr)
	}
	e, err := a.Emails.ReminderAddress(d)
	if err != nil {
		return false, err
	}
	now := a.Clock.Now()
	still := false
	_, err = a.Users.UpdateUser(ctx, u.ID, func(x *User) error {
		// The address may have changed (or confirmed) meanwhile: then
		// this request is not sent.
		if still = EmailKey(x.ReminderAddress) == EmailKey(addr) && !x.ReminderAddressConfirmed(); still {
			x.ReminderAddressAskedAt = now
		}
		return nil
	})
	if err != nil || !still {
		return false, err
	}
	return true, a.Outbox.Email(ctx, e)
}

// refusalLink is the one-click refusal link of addr.
func refusalLink(baseURL string, t *RefusalTokens, addr string) string {
	return baseURL + "/unsubscribe/" + t.Token(addr)
}

// confirmReminderAddress applies a used confirmReminderAddress code: the
// user's second address, if it is still the one asked, is confirmed.
func (a *Auth) confirmReminderAddress(ctx context.Context, ac *ActionCode) (*ActionInfo, error) {
	_, err := a.Users.UpdateUser(ctx, ac.UserID, func(u *User) error {
		if u.ReminderAddress == "" || EmailKey(u.ReminderAddress) != EmailKey(ac.Email) {
			return errInvalidActionCode()
		}
		if u.ReminderAddressConfirmedAt.IsZero() {
			u.ReminderAddressConfirmedAt = a.Clock.Now()
			u.UpdatedAt = u.ReminderAddressConfirmedAt
		}
		return nil
	})
	if err != nil {
		return nil, actionError(err)
	}
	return actionInfo(ac), nil
}

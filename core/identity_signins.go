package core

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"
	"time"
)

// Where you are signed in: the sessions of an account, as its owner sees
// and ends them, and the email that tells the owner of a sign-in from a
// device and network the account has not signed in from before.

const (
	// SessionSeenInterval is how often a session's last use is written:
	// a request within it of the last write writes nothing, so the list's
	// "last seen" costs one write per session per interval, not one per
	// request.
	SessionSeenInterval = 5 * time.Minute
	// maxKnownDevices is how many devices an account's book remembers;
	// beyond, the one seen longest ago is forgotten.
	maxKnownDevices = 50
)

// SignIns is where the signed-in user is signed in: the sessions, ending
// one or all others, and the email about a sign-in from a new device. Auth
// implements it.
type SignIns interface {
	// ListSessions lists the sessions of the user of the identity in ctx,
	// the most recently used first, the current one marked.
	ListSessions(ctx context.Context) ([]SessionInfo, error)
	// RevokeSession ends one of the user's sessions.
	RevokeSession(ctx context.Context, id string) error
	// RevokeOtherSessions ends every session of the user but the current
	// one and says how many it ended.
	RevokeOtherSessions(ctx context.Context) (int, error)
	// SignInAlerts tells whether the user is emailed about a sign-in from
	// a new device; SetSignInAlerts switches it.
	SignInAlerts(ctx context.Context) (bool, error)
	SetSignInAlerts(ctx context.Context, on bool) (bool, error)
}

var _ SignIns = (*Auth)(nil)

// SessionInfo is a session as its owner's list shows it.
type SessionInfo struct {
	ID         string
	Device     Device
	Network    string // "203.0.113.0/24"; "" when unknown
	CreatedAt  time.Time
	LastSeenAt time.Time
	Current    bool // the session of the identity that asked
}

// KnownDevice is a device and network an account signed in from: Key is a
// keyed hash of the browser, the system and the network, so the book
// tells whether it saw them, not what they were.
type KnownDevice struct {
	Key       string
	FirstSeen time.Time
	LastSeen  time.Time
}

// DeviceBook is what an account remembers of where it signed in, and
// whether its owner wants to hear of a sign-in from a new device.
type DeviceBook struct {
	UserID    string
	AlertsOff bool
	Devices   []KnownDevice
}

// DeviceBookStore keeps one DeviceBook per user, deleted with the user.
type DeviceBookStore interface {
	// FindDeviceBook returns the user's book, an empty one (no devices,
	// alerts on) when it has none.
	FindDeviceBook(ctx context.Context, userID string) (*DeviceBook, error)
	// UpdateDeviceBook applies fn to the user's book (an empty one when
	// it has none) in one transaction and stores it, unless fn fails. The
	// user must exist (EUserNotFound).
	UpdateDeviceBook(ctx context.Context, userID string, fn func(b *DeviceBook) error) (*DeviceBook, error)
}

// see records key as seen at now and tells whether it was new; the book
// keeps the maxKnownDevices seen last.
func (b *DeviceBook) see(key string, now time.Time) bool {
	for i := range b.Devices {
		if b.Devices[i].Key == key {
			b.Devices[i].LastSeen = now
			return false
		}
	}
	b.Devices = append(b.Devices, KnownDevice{Key: key, FirstSeen: now, LastSeen: now})
	if len(b.Devices) > maxKnownDevices {
		slices.SortStableFunc(b.Devices, func(x, y KnownDevice) int { return y.LastSeen.Compare(x.LastSeen) })
		b.Devices = b.Devices[:maxKnownDevices]
	}
	return true
}

// NewSignInEmail tells an account's owner of a sign-in from a device and
// network the account had not signed in from: what, when and where, and
// how to secure the account.
type NewSignInEmail struct {
	To       Address
	Device   string // "Firefox on Linux"
	Network  string // "203.0.113.0/24", or "" when unknown
	At       time.Time
	Location *time.Location // the owner's time zone
	// SessionsLink is the list of sessions (to end this one); ResetLink
	// asks for a new password.
	SessionsLink string
	ResetLink    string
}

// deviceKey is the book's key of a device on a network.
func (a *Auth) deviceKey(d Device, network string) string {
	mac := hmac.New(sha256.New, DeriveKey(a.SigningKey, PurposeKnownDevices))
	mac.Write([]byte(d.Browser + "\x00" + d.OS + "\x00" + network))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:18])
}

// noteSignIn records where the session s of u signed in and, when the
// account had signed in before but never from this device and network,
// emails the owner. The session exists either way: a failure is logged.
//
// No email goes to an address its account never verified (its owner did
// not make the account, and a stranger could sign in from many networks
// to write to it), to an address that refused every email, or beyond its
// own limits (LimitNewDeviceEmailsHour and Day, per account): never in the
// verification emails' budget, which an email change needs.
func (a *Auth) noteSignIn(ctx context.Context, u *User, s *Session) {
	a.noteDevice(ctx, u, s.UserAgent, s.Network, s.CreatedAt)
}

// noteDevice is noteSignIn of a client known by its user agent and
// network that started using the account at: a session, or an access
// token the device flow handed out.
func (a *Auth) noteDevice(ctx context.Context, u *User, userAgent, network string, at time.Time) {
	if a.Devices == nil {
		return
	}
	d := ParseDevice(userAgent)
	key := a.deviceKey(d, network)
	var isNew, first, off bool
	_, err := a.Devices.UpdateDeviceBook(ctx, u.ID, func(b *DeviceBook) error {
		first, off = len(b.Devices) == 0, b.AlertsOff
		isNew = b.see(key, at)
		return nil
	})
	if err != nil {
		a.log().Error("recording a sign-in's device", "uid", u.ID, "err", err)
		return
	}
	if !isNew || first || off {
		return
	}
	if !u.EmailVerified {
		a.log().Info("new-device email not sent: the address is not verified", "uid", u.ID)
		return
	}
	if a.Refused != nil {
		refused, err := a.Refused.AddressRefused(ctx, u.Email)
		if err != nil || refused {
			a.log().Info("new-device email not sent: the address refused every email", "uid", u.ID, "err", err)
			return
		}
	}
	wait, err := a.Limits.Take(ctx, LimitTake{LimitNewDeviceEmailsHour, u.ID}, LimitTake{LimitNewDeviceEmailsDay, u.ID})
	switch {
	case err != nil:
		a.log().Error("queueing the new-device email", "uid", u.ID, "err", err)
		return
	case wait > 0:
		a.log().Warn("new-device email held back: too many to this address", "uid", u.ID)
		return
	}
	base := strings.TrimRight(a.BaseURL, "/")
	e, err := a.Emails.NewSignIn(NewSignInEmail{
		To: Address{Name: u.Name, Address: u.Email}, Device: d.String(), Network: network,
		At: at, Location: u.Location(),
		SessionsLink: base + "/settings/security", ResetLink: base + "/auth/forgotpass",
	})
	if err == nil {
		err = a.Outbox.Email(ctx, e)
	}
	if err != nil {
		a.log().Error("queueing the new-device email", "uid", u.ID, "err", err)
	}
}

// touchSession writes now as the last use of session sid, last used at
// lastUsed, when the last write is
// SessionSeenInterval old: a failure only leaves it older.
func (a *Auth) touchSession(ctx context.Context, sid string, lastUsed, now time.Time) {
	if now.Sub(lastUsed) < SessionSeenInterval {
		return
	}
	_, err := a.Sessions.UpdateSession(ctx, sid, func(x *Session) error {
		if now.After(x.LastUsedAt) {
			x.LastUsedAt = now
		}
		return nil
	})
	if err != nil && ErrorCode(err) != ENotFound {
		a.log().Warn("recording a session's last use", "sid", sid, "err", err)
	}
}

// ListSessions lists the sessions of the user of the identity in ctx that
// have not expired, the most recently used first. It needs the account
// scope.
func (a *Auth) ListSessions(ctx context.Context) ([]SessionInfo, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	ss, err := a.Sessions.ListUserSessions(ctx, id.UserID)
	if err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	out := make([]SessionInfo, 0, len(ss))
	for _, s := range ss {
		if s.UserID != id.UserID || !now.Before(s.ExpiresAt) {
			continue
		}
		out = append(out, SessionInfo{
			ID: s.ID, Device: ParseDevice(s.UserAgent), Network: s.Network,
			CreatedAt: s.CreatedAt, LastSeenAt: s.LastUsedAt, Current: s.ID == id.SessionID,
		})
	}
	slices.SortFunc(out, func(x, y SessionInfo) int {
		if c := y.LastSeenAt.Compare(x.LastSeenAt); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	return out, nil
}

func errSessionNotFound() error {
	return Errorf(ENotFound, "The session could not be found.")
}

// RevokeSession ends one session of the user of the identity in ctx:
// another user's, or an unknown id, is not found. Ending the current one is
// signing out; ending another needs a recent login, so that a stolen
// session cannot end its owner's.
func (a *Auth) RevokeSession(ctx context.Context, sid string) error {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return err
	}
	if id.Operator != "" {
		return errOperator()
	}
	if sid == "" || sid != id.SessionID {
		if err := a.RequireRecentLogin(ctx); err != nil {
			return err
		}
	}
	s, err := a.Sessions.FindSessionByID(ctx, sid)
	if ErrorCode(err) == ENotFound || (err == nil && s.UserID != id.UserID) {
		return errSessionNotFound()
	}
	if err != nil {
		return err
	}
	if err := a.Sessions.DeleteSession(ctx, sid); err != nil {
		if ErrorCode(err) == ENotFound {
			return errSessionNotFound()
		}
		return err
	}
	a.log().Info("session revoked by its owner", "uid", id.UserID, "sid", sid)
	return nil
}

// RevokeOtherSessions ends every session of the user of the identity in
// ctx but its own (recent login). Personal access tokens stay: they are
// listed and revoked one by one.
func (a *Auth) RevokeOtherSessions(ctx context.Context) (int, error) {
	if err := a.RequireRecentLogin(ctx); err != nil {
		return 0, err
	}
	id, err := signedIn(ctx)
	if err != nil {
		return 0, err
	}
	ss, err := a.Sessions.ListUserSessions(ctx, id.UserID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range ss {
		if s.ID != id.SessionID {
			n++
		}
	}
	if err := a.Sessions.DeleteUserSessions(ctx, id.UserID, id.SessionID); err != nil {
		return 0, err
	}
	a.log().Info("other sessions revoked by their owner", "uid", id.UserID, "count", n)
	return n, nil
}

// SignInAlerts tells whether the user of the identity in ctx is emailed
// about sign-ins from new devices (account scope).
func (a *Auth) SignInAlerts(ctx context.Context) (bool, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return false, err
	}
	if a.Devices == nil {
		return false, nil
	}
	b, err := a.Devices.FindDeviceBook(ctx, id.UserID)
	if err != nil {
		return false, err
	}
	return !b.AlertsOff, nil
}

// SetSignInAlerts switches the emails about sign-ins from new devices.
// Switching them off needs a recent login: it is what someone who took a
// session would do first.
func (a *Auth) SetSignInAlerts(ctx context.Context, on bool) (bool, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return false, err
	}
	if id.Operator != "" {
		return false, errOperator()
	}
	if !on {
		if err := a.RequireRecentLogin(ctx); err != nil {
			return false, err
		}
	}
	if a.Devices == nil {
		return false, Errorf(EUnavailable, "Sign-in emails are not available on this server.")
	}
	b, err := a.Devices.UpdateDeviceBook(ctx, id.UserID, func(b *DeviceBook) error {
		b.AlertsOff = !on
		return nil
	})
	if err != nil {
		return false, tokenError(err)
	}
	return !b.AlertsOff, nil
}

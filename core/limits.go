package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"
)

// Limits on attempts, sends and streams. Every one of them counts events in
// one LimitStore, so that they hold for the whole installation: with
// PostgreSQL across every replica, with bbolt (one process holds the file) in
// that process's memory. A limit of a client counts it by Limiter.Client:
// its IPv4 address, or its IPv6 network. docs/security.md lists them with
// their numbers.

// LimitEvent is one event a limit counts: a failed sign-in, a verification
// email sent, a message stream open.
type LimitEvent struct {
	ID      string    // unique under its key; recording it again replaces it
	At      time.Time // when it happened: events are ordered by At, then ID
	Expires time.Time // when it stops counting and may be forgotten
}

// LimitStore keeps the events the limits count, under keys. Keys and ids
// are at most 255 bytes.
type LimitStore interface {
	// HitLimit records e under key, replacing key's event with e.ID, and
	// returns key's events that have not expired at now, oldest first, in
	// one step (one transaction) that follows every earlier hit of key:
	// what it returns holds every event recorded under key before e
	// (Limiter.Take counts on it).
	HitLimit(ctx context.Context, key string, e LimitEvent, now time.Time) ([]LimitEvent, error)
	// LimitEvents returns key's events that have not expired at now, oldest
	// first.
	LimitEvents(ctx context.Context, key string, now time.Time) ([]LimitEvent, error)
	// ClearLimit forgets key's events: those with the ids given, or all.
	ClearLimit(ctx context.Context, key string, ids ...string) error
	// DeleteExpiredLimitEvents forgets every event expired at now.
	DeleteExpiredLimitEvents(ctx context.Context, now time.Time) (int, error)
}

// Limit allows Max events per key within Window.
type Limit struct {
	Name   string // the kind of key, e.g. "signin-client"; part of every key
	Max    int
	Window time.Duration
}

// The limits and their numbers (docs/security.md).
var (
	// Failed sign-ins (and re-auths) of one client on one account: beyond,
	// that client's sign-ins to it need a proof of work (ProofOfWork), so
	// that the owner behind the same NAT gets in; its re-auths wait.
	LimitSignInAccountClient = Limit{"signin-account-client", 5, 15 * time.Minute}
	// Failed sign-ins of one client on any account, with its sign-ups and
	// password reset requests: beyond, that client waits.
	LimitSignInClient = Limit{"signin-client", 50, 15 * time.Minute}
	// Failed sign-ins on one account from anywhere: beyond, every sign-in to
	// it needs a proof of work (ProofOfWork), which the web app solves.
	LimitSignInAccount = Limit{"signin-account", 10, 15 * time.Minute}
	// Proofs of work used, so that each is used once.
	limitProofUsed = Limit{"proof-used", 1, ProofTTL}

	// Identity emails to one address (and from one account): password
	// resets, and verification emails of sign-up, resend and email change.
	LimitResetEmailsHour       = Limit{"reset-email-hour", 5, time.Hour}
	LimitResetEmailsDay        = Limit{"reset-email-day", 10, 24 * time.Hour}
	LimitVerifyEmailsHour      = Limit{"verify-email-hour", 3, time.Hour}
	LimitVerifyEmailsDay       = Limit{"verify-email-day", 10, 24 * time.Hour}
	LimitVerifyAccountEmailsHr = Limit{"verify-account-hour", 3, time.Hour}
	LimitVerifyAccountEmailsDy = Limit{"verify-account-day", 10, 24 * time.Hour}
	// New-device emails of one account: a budget of their own, so that
	// someone holding the password cannot, by signing in from many
	// networks, use up the verification emails an email change needs.
	LimitNewDeviceEmailsHour = Limit{"new-device-hour", 3, time.Hour}
	LimitNewDeviceEmailsDay  = Limit{"new-device-day", 10, 24 * time.Hour}

	// Wrong postpone codes of one client, on one message and on any.
	LimitPostponeMessageClient = Limit{"postpone-message-client", 10, time.Hour}
	LimitPostponeClient        = Limit{"postpone-client", 30, time.Hour}

	// Contact form submissions of one client.
	LimitContactClient = Limit{"contact-client", 5, 10 * time.Minute}

	// Live lists of one user open at once (Follow): a place is held while
	// it is renewed, at least every DefaultFollowRecheck.
	LimitStreams = Limit{"streams", 5, time.Minute}

	// The device flow (identity_deviceflow.go): pairs of codes asked for by
	// one client, and wrong user codes typed by one client and on one
	// account. With UserCodeAlphabet's 34.6 bits a client finds a live
	// code with a chance of some live codes × 10 in 2.6×10^10 per quarter hour.
	LimitDeviceCodesClient     = Limit{"device-codes-client", 10, 15 * time.Minute}
	LimitDeviceUserCodeClient  = Limit{"device-user-code-client", 10, 15 * time.Minute}
	LimitDeviceUserCodeAccount = Limit{"device-user-code-account", 20, time.Hour}
)

// Limiter applies limits over a LimitStore. Keys are kept as keyed hashes:
// the store holds no email or client address in clear.
type Limiter struct {
	Store LimitStore
	Clock Clock
	// Key keys the hashes of the keys (DeriveKey(master, PurposeLimitKeys)).
	Key []byte
	// IPv6Prefix is how many leading bits of an IPv6 client's address
	// name the client the limits count (Client; config
	// limits.ipv6_prefix); 0: DefaultIPv6Prefix.
	IPv6Prefix int
}

// key is the stored key of k under l: l's name and a keyed hash of k.
func (lr *Limiter) key(l Limit, k string) string {
	mac := hmac.New(sha256.New, lr.Key)
	mac.Write([]byte(k))
	return l.Name + ":" + hex.EncodeToString(mac.Sum(nil)[:16])
}

// wait is how long a key holding events must wait, under l, until fewer
// than l.Max of them are within the window at now.
func wait(l Limit, events []LimitEvent, now time.Time) time.Duration {
	if len(events) < l.Max {
		return 0
	}
	free := events[len(events)-l.Max].At.Add(l.Window)
	return max(free.Sub(now), time.Second)
}

// Wait reports how long k must wait before its next event under l: 0 while
// it holds fewer than l.Max events within the window.
func (lr *Limiter) Wait(ctx context.Context, l Limit, k string) (time.Duration, error) {
	now := lr.Clock.Now()
	events, err := lr.Store.LimitEvents(ctx, lr.key(l, k), now)
	if err != nil {
		return 0, err
	}
	return wait(l, events, now), nil
}

// Count is how many events k holds within l's window.
func (lr *Limiter) Count(ctx context.Context, l Limit, k string) (int, error) {
	events, err := lr.Store.LimitEvents(ctx, lr.key(l, k), lr.Clock.Now())
	return len(events), err
}

// Record counts an event of k under l and returns how many k then holds
// within the window.
func (lr *Limiter) Record(ctx context.Context, l Limit, k string) (int, error) {
	now := lr.Clock.Now()
	events, err := lr.Store.HitLimit(ctx, lr.key(l, k), LimitEvent{ID: NewID(), At: now, Expires: now.Add(l.Window)}, now)
	return len(events), err
}

// Check returns the longest wait of the keys under their limits: 0 when
// none has reached its limit.
func (lr *Limiter) Check(ctx context.Context, takes ...LimitTake) (time.Duration, error) {
	var longest time.Duration
	for _, t := range takes {
		w, err := lr.Wait(ctx, t.Limit, t.Key)
		if err != nil {
			return 0, err
		}
		longest = max(longest, w)
	}
	return longest, nil
}

// Take records an event of every key under its limit, unless one of them
// has reached its limit: then it records nothing and returns the longest
// wait. Concurrent takes cannot pass a limit together: each records first
// and counts what its key held when it did (the store serializes a key's
// hits), and one that finds its key over the limit takes its events back.
// A race can only refuse one more than needed, never allow one more.
func (lr *Limiter) Take(ctx context.Context, takes ...LimitTake) (time.Duration, error) {
	longest, err := lr.Check(ctx, takes...) // the usual refusal costs no write
	if err != nil || longest > 0 {
		return longest, err
	}
	now, id := lr.Clock.Now(), NewID()
	recorded := 0
	for _, t := range takes {
		events, err := lr.Store.HitLimit(ctx, lr.key(t.Limit, t.Key), LimitEvent{ID: id, At: now, Expires: now.Add(t.Limit.Window)}, now)
		if err != nil {
			lr.untake(ctx, takes[:recorded], id)
			return 0, err
		}
		recorded++
		if len(events) > t.Limit.Max {
			others := slices.DeleteFunc(events, func(e LimitEvent) bool { return e.ID == id })
			longest = max(longest, wait(t.Limit, others, now))
		}
	}
	if longest > 0 {
		lr.untake(ctx, takes, id)
	}
	return longest, nil
}

// untake forgets the events id recorded under takes (Take's, refused or
// failed); a failure only leaves them counted until they expire.
func (lr *Limiter) untake(ctx context.Context, takes []LimitTake, id string) {
	ctx = context.WithoutCancel(ctx)
	for _, t := range takes {
		_ = lr.Store.ClearLimit(ctx, lr.key(t.Limit, t.Key), id)
	}
}

// Once records an event of k under l and reports whether it is the one k
// holds within the window: of calls at once, exactly one is first (the
// store serializes a key's hits, and each sees those before it). A call
// that is not first takes its event back, so that k holds the first's
// alone; the first gives its event back with Release(l, k, id) when what
// it guarded failed, so that a later call is first again.
func (lr *Limiter) Once(ctx context.Context, l Limit, k string) (id string, first bool, err error) {
	now, id := lr.Clock.Now(), NewID()
	events, err := lr.Store.HitLimit(ctx, lr.key(l, k), LimitEvent{ID: id, At: now, Expires: now.Add(l.Window)}, now)
	if err != nil {
		return "", false, err
	}
	if len(events) > 1 {
		lr.untake(ctx, []LimitTake{{Limit: l, Key: k}}, id)
		return "", false, nil
	}
	return id, true, nil
}

// LimitTake is one key under one limit, for Take.
type LimitTake struct {
	Limit Limit
	Key   string
}

// Hold holds a place for id among k's places under l, renewing it: since
// orders the places (the oldest give way first), and a place not renewed
// within l.Window is free again. It reports whether id is among the newest
// l.Max places.
func (lr *Limiter) Hold(ctx context.Context, l Limit, k, id string, since time.Time) (bool, error) {
	now := lr.Clock.Now()
	events, err := lr.Store.HitLimit(ctx, lr.key(l, k), LimitEvent{ID: id, At: since, Expires: now.Add(l.Window)}, now)
	if err != nil {
		return false, err
	}
	for i, e := range events {
		if e.ID == id {
			return i >= len(events)-l.Max, nil
		}
	}
	return true, nil
}

// Release frees id's place among k's under l.
func (lr *Limiter) Release(ctx context.Context, l Limit, k, id string) error {
	return lr.Store.ClearLimit(ctx, lr.key(l, k), id)
}

// Clear forgets k's events under l (a successful sign-in).
func (lr *Limiter) Clear(ctx context.Context, l Limit, k string) error {
	return lr.Store.ClearLimit(ctx, lr.key(l, k))
}

// Sweep forgets every expired event.
func (lr *Limiter) Sweep(ctx context.Context) (int, error) {
	return lr.Store.DeleteExpiredLimitEvents(ctx, lr.Clock.Now())
}

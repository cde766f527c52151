package core

import (
	"context"
	"time"
)

// The live list: Follow on MessageService, which the API's message stream
// (Server-Sent Events) and any other front end read.
const (
	// DefaultFollowRecheck is how often Follow checks that the identity
	// still holds when nothing changes.
	DefaultFollowRecheck = 15 * time.Second
	// followSettle gathers a burst of changes into one list.
	followSettle = 100 * time.Millisecond
	// DefaultFollowOutage is how long a live list waits out a store that
	// cannot be reached before it ends with service/unavailable.
	DefaultFollowOutage = time.Minute
	// followRetryFirst and followRetryMax bound the pause between the tries
	// of a list the store could not give.
	followRetryFirst = 250 * time.Millisecond
	followRetryMax   = 5 * time.Second
)

// MaxStreams is how many live lists one user may follow at once
// (LimitStreams): a new one makes the oldest end with EStreamReplaced.
var MaxStreams = LimitStreams.Max

func errStreamReplaced() error {
	return Errorf(EStreamReplaced, "This live list was closed: you opened more than %d at once (other windows or devices). Reload to follow it here again.", MaxStreams)
}

// Follow sends the first page of the author's list, with the author as the
// session user shows them, at once and again about 100 ms after every burst
// of changes to their messages or their account, whoever made them (the
// API, an operator, the delivery pass, a payment webhook). It checks the
// identity in ctx before every list and every Recheck, and renews its place
// among the author's MaxStreams live lists as often; when the identity no
// longer holds, a newer live list took the place, or a list cannot be read,
// it sends that error and closes the channel. It ends when ctx does. A slow
// reader loses nothing: changes meanwhile become one list.
//
// A store that cannot be reached (a connection cut, a database restarting)
// does not end it: the list is tried again, with a growing pause, and sent
// once the store answers (the store signals every watcher when it has
// been cut off from changes), for up to DefaultFollowOutage (Outage); only
// then does it end with the store's error, which tells the client to
// reconnect.
func (s *MessageService) Follow(ctx context.Context) (<-chan MessageList, error) {
	id, err := authorized(ctx, ScopeMessagesRead)
	if err != nil {
		return nil, err
	}
	if s.Watcher == nil || s.Verifier == nil || s.Limits == nil {
		return nil, Errorf(EUnavailable, "Live updates are not available.")
	}
	slot, since := NewID(), s.Clock.Now()
	if _, err := s.Limits.Hold(ctx, LimitStreams, id.UserID, slot, since); err != nil {
		return nil, err
	}
	changes, cancel := s.Watcher.WatchMessages(ctx, id.UserID)
	out := make(chan MessageList)
	go func() {
		defer close(out)
		defer cancel()
		defer s.Limits.Release(context.WithoutCancel(ctx), LimitStreams, id.UserID, slot)
		s.follow(ctx, changes, out, func() error {
			held, err := s.Limits.Hold(ctx, LimitStreams, id.UserID, slot, since)
			if err == nil && !held {
				err = errStreamReplaced()
			}
			return err
		})
	}()
	return out, nil
}

// follow runs a live list; still tells whether it may go on, beyond its
// identity, before every list but the first and at every recheck.
func (s *MessageService) follow(ctx context.Context, changes <-chan struct{}, out chan<- MessageList, still func() error) {
	// send delivers v unless ctx ends first; it reports whether to go on.
	send := func(v MessageList) bool {
		select {
		case out <- v:
			return v.Err == nil
		case <-ctx.Done():
			return false
		}
	}
	// While the store cannot be reached the list is tried again on retry,
	// the pause growing, until the outage lasted too long (downSince).
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	pause := followRetryFirst
	var downSince time.Time
	// ends reports whether err ends the live list, else schedules a try.
	ends := func(err error) bool {
		if code := ErrorCode(err); code != EUnavailable && code != EOutcomeUnknown {
			return true
		}
		now := time.Now() // outages are in real time, whatever the clock
		if downSince.IsZero() {
			downSince = now
		}
		if now.Sub(downSince) >= s.outage() {
			return true
		}
		retry.Reset(pause)
		pause = min(2*pause, followRetryMax)
		return false
	}
	up := func() { downSince, pause = time.Time{}, followRetryFirst }

	first := true
	list := func() bool {
		err := s.Verifier.VerifyIdentity(ctx)
		if err == nil && !first {
			// A live list that a newer one replaced stops before it
			// costs another page.
			err = still()
		}
		var page *MessagePage
		var u *User
		if err == nil {
			page, err = s.List(ctx, Page{})
		}
		if err == nil {
			if u, err = s.author(ctx, ScopeMessagesRead); err != nil {
				err = tokenError(err)
			}
		}
		if err != nil {
			if ctx.Err() == nil && !ends(err) {
				return true
			}
			return send(MessageList{Err: err})
		}
		first = false
		up()
		su := u.Session(s.Prices, len(page.Messages) > 0)
		su.HoldUntil = activeHold(u, s.Clock.Now())
		if err := refusalState(ctx, s.Refused, &su); err != nil {
			return send(MessageList{Err: err})
		}
		return send(MessageList{Messages: page.Messages, User: &su})
	}
	if !list() {
		return
	}
	recheck := time.NewTicker(s.recheck())
	defer recheck.Stop()
	settle := time.NewTimer(0)
	<-settle.C
	settling := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
			if !settling {
				settling = true
				settle.Reset(followSettle)
			}
		case <-settle.C:
			settling = false
			if !list() {
				return
			}
		case <-retry.C:
			if !list() {
				return
			}
		case <-recheck.C:
			err := s.Verifier.VerifyIdentity(ctx)
			if err == nil {
				err = still()
			}
			if err != nil && (ctx.Err() != nil || ends(err)) {
				send(MessageList{Err: err})
				return
			}
		}
	}
}

func (s *MessageService) outage() time.Duration {
	if s.Outage > 0 {
		return s.Outage
	}
	return DefaultFollowOutage
}

func (s *MessageService) recheck() time.Duration {
	if s.Recheck > 0 {
		return s.Recheck
	}
	return DefaultFollowRecheck
}

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
	first := true
	list := func() bool {
		err := s.Verifier.VerifyIdentity(ctx)
		if err == nil && !first {
			// A live list that a newer one replaced stops before it
			// costs another page.
			err = still()
		}
		first = false
		if err != nil {
			return send(MessageList{Err: err})
		}
		page, err := s.List(ctx, Page{})
		if err != nil {
			return send(MessageList{Err: err})
		}
		u, err := s.author(ctx, ScopeMessagesRead)
		if err != nil {
			return send(MessageList{Err: tokenError(err)})
		}
		su := u.Session(s.Prices, len(page.Messages) > 0)
		su.HoldUntil = activeHold(u, s.Clock.Now())
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
		case <-recheck.C:
			err := s.Verifier.VerifyIdentity(ctx)
			if err == nil {
				err = still()
			}
			if err != nil {
				send(MessageList{Err: err})
				return
			}
		}
	}
}

func (s *MessageService) recheck() time.Duration {
	if s.Recheck > 0 {
		return s.Recheck
	}
	return DefaultFollowRecheck
}

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

// Follow sends the author's whole list, with the author as the session user
// shows them, at once and again about 100 ms after every burst of changes to
// their messages or their account, whoever made them (the API, an operator,
// the delivery pass, a payment webhook). It checks the identity in ctx before every
// list and every Recheck; when the identity no longer holds, or a list
// cannot be read, it sends that error and closes the channel. It ends when
// ctx does. A slow reader loses nothing: changes meanwhile become one list.
func (s *MessageService) Follow(ctx context.Context) (<-chan MessageList, error) {
	id, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	if s.Watcher == nil || s.Verifier == nil {
		return nil, Errorf(EUnavailable, "Live updates are not available.")
	}
	changes, cancel := s.Watcher.WatchMessages(ctx, id.UserID)
	out := make(chan MessageList)
	go func() {
		defer close(out)
		defer cancel()
		s.follow(ctx, changes, out)
	}()
	return out, nil
}

func (s *MessageService) follow(ctx context.Context, changes <-chan struct{}, out chan<- MessageList) {
	// send delivers v unless ctx ends first; it reports whether to go on.
	send := func(v MessageList) bool {
		select {
		case out <- v:
			return v.Err == nil
		case <-ctx.Done():
			return false
		}
	}
	list := func() bool {
		if err := s.Verifier.VerifyIdentity(ctx); err != nil {
			return send(MessageList{Err: err})
		}
		ms, err := s.List(ctx)
		if err != nil {
			return send(MessageList{Err: err})
		}
		u, err := s.author(ctx)
		if err != nil {
			return send(MessageList{Err: tokenError(err)})
		}
		su := u.Session(s.Prices, len(ms) > 0)
		return send(MessageList{Messages: ms, User: &su})
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
			if err := s.Verifier.VerifyIdentity(ctx); err != nil {
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

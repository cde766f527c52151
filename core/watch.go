package core

import "context"

// MessageWatcher tells who listens when an owner's messages change, whoever
// changed them: the API, the admin socket or the delivery pass. A store
// implements it at the level every writer goes through, so no writer can
// forget to tell.
type MessageWatcher interface {
	// WatchMessages returns a channel that receives a value after any
	// committed change to owner's messages. Changes that come faster than
	// they are received are coalesced into one value. The watch ends when
	// ctx ends or cancel is called.
	WatchMessages(ctx context.Context, owner string) (changes <-chan struct{}, cancel func())
}

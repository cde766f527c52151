package core

import "context"

// MessageWatcher tells who listens when an owner's messages or account
// change, whoever changed them: the API, the admin socket, the delivery pass
// or a payment webhook. A store implements it at the level every writer
// goes through, so no writer can forget to tell.
type MessageWatcher interface {
	// WatchMessages returns a channel that receives a value after any
	// committed change to owner's messages or to the owner's user record
	// (its plan, profile and sign-in methods). Changes that come faster than
	// they are received are coalesced into one value. The watch ends when
	// ctx ends or cancel is called.
	WatchMessages(ctx context.Context, owner string) (changes <-chan struct{}, cancel func())
}

package web

import (
	"net/http"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
)

// authorAPI is the signed-in author's part of the API: their messages, the
// live list and their account. The public server serves it to bearer
// tokens; the admin socket serves the same handlers to an operator acting
// for a user (actAs). Who acts is in the request's context.
type authorAPI struct {
	messages  core.Messages
	account   core.Account
	heartbeat time.Duration   // of message streams; zero: DefaultStreamHeartbeat
	stopping  <-chan struct{} // closed when the server shuts down
	// signedOut runs after a sign-out (the public server deletes the
	// refresh cookie); nil: nothing.
	signedOut func(w http.ResponseWriter)
	// gens are the store's generations (core.UserGenerations); with them
	// the replies of the list's pages and of messages are kept in kept
	// (writeKept). Nil: every read is read and encoded.
	gens core.UserGenerations
	kept core.GenerationCache[keptReply]
	// keptMe are the replies of GET /api/me, kept likewise when the
	// account says how long they hold (core.MeKeeper; writeKeptMe).
	keptMe core.GenerationCache[keptMe]
	// metrics counts the open live lists; nil: not counted.
	metrics core.Metrics
}

// guard turns a handler into one that knows who acts, or refuses.
type guard func(http.HandlerFunc) http.HandlerFunc

// routes registers the author's routes: signedIn guards them, stream the
// message stream, quick the quick reads (inside signedIn, so that the gate
// knows whose read it is).
func (a *authorAPI) routes(mux *http.ServeMux, signedIn, stream, quick guard) {
	mux.HandleFunc("GET /api/me", signedIn(quick(a.handleMe)))
	mux.HandleFunc("PATCH /api/me", signedIn(a.handleUpdateMe))
	mux.HandleFunc("POST /api/auth/signout", signedIn(a.handleSignOut))
	mux.HandleFunc("GET /api/me/tokens", signedIn(a.handleListTokens))
	mux.HandleFunc("POST /api/me/tokens", signedIn(a.handleCreateToken))
	mux.HandleFunc("DELETE /api/me/tokens/{id}", signedIn(a.handleRevokeToken))

	mux.HandleFunc("GET /api/messages", signedIn(quick(a.handleListMessages)))
	mux.HandleFunc("POST /api/messages", signedIn(a.handleCreateMessage))
	mux.HandleFunc("GET /api/messages/stream", stream(a.handleMessagesStream))
	mux.HandleFunc("GET /api/messages/{id}", signedIn(quick(a.handleGetMessage)))
	mux.HandleFunc("PATCH /api/messages/{id}", signedIn(a.handleUpdateMessage))
	mux.HandleFunc("DELETE /api/messages/{id}", signedIn(a.handleDeleteMessage))
	mux.HandleFunc("POST /api/messages/{id}/postpone", signedIn(a.handlePostponeMessage))
	mux.HandleFunc("GET /api/messages/{id}/events", signedIn(quick(a.handleMessageEvents)))
	mux.HandleFunc("POST /api/messages/{id}/test", signedIn(a.handleSendTest))
	mux.HandleFunc("POST /api/messages/{id}/notify", signedIn(a.handleNotifyRecipient))
	mux.HandleFunc("POST /api/messages/preview", signedIn(a.handlePreview))
	mux.HandleFunc("POST /api/messages/{id}/preview", signedIn(a.handlePreviewMessage))
	mux.HandleFunc("PUT /api/me/hold", signedIn(a.handleHold))
	mux.HandleFunc("DELETE /api/me/hold", signedIn(a.handleEndHold))
}

// shutdown is closed when a server shuts down, to end long-lived replies
// (message streams) that a graceful shutdown would otherwise wait for.
type shutdown struct {
	once, closeOnce sync.Once
	ch              chan struct{}
}

func (d *shutdown) done() <-chan struct{} {
	d.once.Do(func() { d.ch = make(chan struct{}) })
	return d.ch
}

func (d *shutdown) close() {
	d.done()
	d.closeOnce.Do(func() { close(d.ch) })
}

package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Server-Sent Events of GET /api/messages/stream.
const (
	// DefaultStreamHeartbeat is how often a stream sends a comment line, so
	// proxies keep it open, and checks that its token still holds.
	DefaultStreamHeartbeat = 15 * time.Second
	// streamSettle gathers a burst of changes into one list.
	streamSettle = 100 * time.Millisecond
	// streamRetry is the reconnection delay a stream advises its client.
	streamRetry = 3 * time.Second
)

// streamToken is the bearer token of a stream: the Authorization header, or
// the token query parameter for EventSource, which cannot set headers. The
// access log holds the path only, so the query never reaches a log.
func streamToken(r *http.Request) string {
	if t := bearerToken(r); t != "" {
		return t
	}
	return r.URL.Query().Get("token")
}

// handleMessagesStream sends the user's whole list (the data of GET
// /api/messages) as the event "messages" at once and again after every
// change to it, whoever made it. It checks the token again before each list
// and each heartbeat and ends with the event "error" (an error envelope)
// when the token no longer holds. Server shutdown ends it too.
func (s *Server) handleMessagesStream(w http.ResponseWriter, r *http.Request) {
	id, token := identity(r), streamToken(r)
	if s.Watcher == nil {
		writeError(w, r, core.Errorf(core.EUnavailable, "Live updates are not available."))
		return
	}
	ctx := r.Context()
	changes, cancel := s.Watcher.WatchMessages(ctx, id.UserID)
	defer cancel()

	// A stream outlives any read or write deadline of the server.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, "retry: %d\n\n", streamRetry.Milliseconds()); err != nil {
		return
	}

	// fail ends the stream with the event "error", unless the client is
	// already gone.
	fail := func(err error) bool {
		if ctx.Err() == nil {
			writeStreamError(w, r, err)
			rc.Flush()
		}
		return false
	}
	send := func() bool {
		if _, err := s.Auth.Authenticate(ctx, token); err != nil {
			return fail(err)
		}
		ms, err := s.Messages.List(ctx, id.UserID)
		if err != nil {
			return fail(err)
		}
		event := append([]byte("event: messages\ndata: "), appendMessagesJSON(nil, ms)...)
		if _, err := w.Write(append(event, "\n\n"...)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send() {
		return
	}
	every := s.StreamHeartbeat
	if every <= 0 {
		every = DefaultStreamHeartbeat
	}
	heartbeat := time.NewTicker(every)
	defer heartbeat.Stop()
	settle := time.NewTimer(0)
	<-settle.C
	settling := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stopping():
			return
		case <-changes:
			if !settling {
				settling = true
				settle.Reset(streamSettle)
			}
		case <-settle.C:
			settling = false
			if !send() {
				return
			}
		case <-heartbeat.C:
			if _, err := s.Auth.Authenticate(ctx, token); err != nil {
				fail(err)
				return
			}
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// writeStreamError ends a stream with the event "error" carrying an error
// envelope. Internal errors are logged, not shown.
func writeStreamError(w io.Writer, r *http.Request, err error) {
	code := core.ErrorCode(err)
	if code == core.EInternal {
		logger(r).Error("internal error", "err", err)
	}
	data, _ := json.Marshal(errorEnvelope{Status: "error", Code: code, Message: core.ErrorMessage(err)})
	fmt.Fprintf(w, "event: error\ndata: %s\n\n", data)
}

package web

import (
	"bytes"
	"context"
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
	// that proxies keep it open.
	DefaultStreamHeartbeat = 15 * time.Second
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

// handleMessagesStream writes what core.Messages.Follow sends: the whole
// list (the data of GET /api/messages) as the event "messages", at once and
// after every change, each preceded by the session user (the data of GET
// /api/me) as the event "me" when it differs from the last one sent (a plan
// that started or lapsed), and its final error as the event "error" (an error
// envelope), which ends the stream. In between it sends heartbeats. Server
// shutdown ends it too.
func (a *authorAPI) handleMessagesStream(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	lists, err := a.messages.Follow(ctx)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if a.metrics != nil {
		a.metrics.Streams(1)
		defer a.metrics.Streams(-1)
	}

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

	heartbeat := time.NewTicker(a.heartbeatEvery())
	defer heartbeat.Stop()
	var lastMe []byte // the session user last sent
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.stopping:
			return
		case l, ok := <-lists:
			if !ok {
				return
			}
			if l.Err != nil {
				if ctx.Err() == nil {
					writeStreamError(w, r, l.Err)
					rc.Flush()
				}
				return
			}
			var event []byte
			if me, _ := json.Marshal(NewSessionUserJSON(l.User)); !bytes.Equal(me, lastMe) {
				event = append(append(append(event, "event: me\ndata: "...), me...), "\n\n"...)
				lastMe = me
			}
			event = append(event, "event: messages\ndata: "...)
			event = appendMessagesJSON(event, l.Messages)
			if _, err := w.Write(append(event, "\n\n"...)); err != nil || rc.Flush() != nil {
				return
			}
		case <-heartbeat.C:
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

func (a *authorAPI) heartbeatEvery() time.Duration {
	if a.heartbeat > 0 {
		return a.heartbeat
	}
	return DefaultStreamHeartbeat
}

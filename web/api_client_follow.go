package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sendlater/sendlater/core"
)

// followIdle is how long Follow waits for anything from the server (a list
// or a heartbeat) before it takes the connection for dead.
const followIdle = 3 * DefaultStreamHeartbeat

// Follow reads the live list, GET /api/messages/stream (Server-Sent
// Events): the whole list, with the session user, at once and after every
// change. The channel ends
// with one value holding an error: the server's (auth/invalid-user-token
// when the token no longer holds), or service/unavailable when the stream
// broke off (the server stopped, the network failed, or nothing came for
// three heartbeats). It does not reconnect: that is the caller's choice,
// with a new call. Cancelling ctx ends it without an error value.
func (c *APIClient) Follow(ctx context.Context) (<-chan core.MessageList, error) {
	stream, cancel := context.WithCancel(ctx)
	var idled atomic.Bool
	idle := time.AfterFunc(followIdle, func() { idled.Store(true); cancel() })
	resp, err := c.t.send(stream, "GET", "/api/messages/stream", nil, nil)
	if err != nil {
		idle.Stop()
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		idle.Stop()
		if err := decodeEnvelope(resp, nil); err != nil {
			return nil, err
		}
		return nil, core.Errorf(core.EUnavailable, "The live list answered HTTP %d.", resp.StatusCode)
	}
	out := make(chan core.MessageList)
	// deliver hands v to the caller unless ctx ends first; the idle timer
	// waits while the caller takes its time.
	deliver := func(v core.MessageList) bool {
		idle.Stop()
		defer idle.Reset(followIdle)
		select {
		case out <- v:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		defer close(out)
		defer cancel()
		defer idle.Stop()
		defer resp.Body.Close()
		err := readStream(bufio.NewScanner(resp.Body), func() { idle.Reset(followIdle) }, deliver)
		if err == nil || ctx.Err() != nil {
			return
		}
		if idled.Load() {
			err = core.Errorf(core.EUnavailable, "Nothing came from the server for %s: the live list is taken for dead.", followIdle)
		}
		deliver(core.MessageList{Err: err})
	}()
	return out, nil
}

// readStream reads Server-Sent Events until the stream ends, calling alive
// for every line and send for every list; send reports whether to go on.
// It returns the error that ends the stream, nil when send stopped it.
func readStream(sc *bufio.Scanner, alive func(), send func(core.MessageList) bool) error {
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var event, data strings.Builder
	var me *core.SessionUser // the last "me" event: every list carries it
	for sc.Scan() {
		alive()
		line := sc.Text()
		switch {
		case line == "":
			name, payload := event.String(), data.String()
			event.Reset()
			data.Reset()
			switch name {
			case "me":
				var j SessionUserJSON
				if err := json.Unmarshal([]byte(payload), &j); err != nil {
					return fmt.Errorf("reading the live list's session user: %w", err)
				}
				me = j.Core()
			case "messages":
				var js []*MessageJSON
				if err := json.Unmarshal([]byte(payload), &js); err != nil {
					return fmt.Errorf("reading the live list: %w", err)
				}
				if !send(core.MessageList{Messages: messagesCore(js), User: me}) {
					return nil
				}
			case "error":
				var env errorEnvelope
				if err := json.Unmarshal([]byte(payload), &env); err != nil {
					return fmt.Errorf("reading the live list's error: %w", err)
				}
				return &core.Error{Code: env.Code, Message: env.Message, Fields: env.Fields}
			}
		case strings.HasPrefix(line, "event:"):
			event.WriteString(strings.TrimSpace(strings.TrimPrefix(line, "event:")))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		return core.Errorf(core.EUnavailable, "The live list broke off: %v", err)
	}
	return core.Errorf(core.EUnavailable, "The server ended the live list.")
}

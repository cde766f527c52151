package main

// The streams scenario: one user's heavy use, beside another user's reads.
// The heavy user holds a 5,000-message list, opens 50 live lists (the
// server keeps 5, the oldest giving way), changes a message every 50 ms
// (every live list sends again) and reads pages of 200 back to back over
// -c connections; the measured load is another user's GET /api/messages
// over 2 connections. A server that let one user's reads queue in front of
// everyone's, or sent each live list the whole list, shows it in the other
// user's latency.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// heavyUser is the streams scenario's user: a token and their messages.
type heavyUser struct {
	token string
	ids   []string
}

// prepareHeavy signs a user up, grants the Pro plan and makes n messages.
func prepareHeavy(base string, srv *servers, n int) (*heavyUser, error) {
	email := "heavy-" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "") + "@loadgen.test"
	token, err := signUp(base, email)
	if err != nil {
		return nil, err
	}
	if err := srv.cli("users", "set-plan", email, "pro"); err != nil {
		return nil, err
	}
	h := &heavyUser{token: token, ids: make([]string, n)}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 64 {
				data, err := call(base, "POST", "/api/messages", token, createBody)
				if err != nil {
					errs <- err
					return
				}
				var m struct{ ID string }
				json.Unmarshal(data, &m)
				h.ids[i] = m.ID
			}
		}()
	}
	wg.Wait()
	close(errs)
	return h, <-errs
}

// streams runs the heavy user's load for d beside the measured reads of
// the list user, and prints what the heavy user got.
func (h *heavyUser) streams(addrs []string, base, listToken string, streams, conns int, d time.Duration) result {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var events, replaced atomic.Int64
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			follow(base, h.token, stop, &events, &replaced)
		}()
	}
	wg.Add(1)
	go func() { // a change every 50 ms: every live list sends its page again
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			body := fmt.Sprintf(`{"title":"Changed %d"}`, i)
			call(base, "PATCH", "/api/messages/"+h.ids[i%len(h.ids)], h.token, []byte(body))
		}
	}()
	var heavy result
	wg.Add(1)
	go func() {
		defer wg.Done()
		heavy = closedLoop(addrs, conns, d, request("GET", "/api/messages?limit=200", h.token, nil))
	}()
	res := closedLoop(addrs, 2, d, request("GET", "/api/messages", listToken, nil))
	close(stop)
	wg.Wait()
	fmt.Printf("  heavy user: %d pages of 200 read (p50 %.1f ms, p99 %.1f ms), %d live-list events, %d live lists replaced\n",
		heavy.n, ms(heavy.pct(50)), ms(heavy.pct(99)), events.Load(), replaced.Load())
	return res
}

// follow reads a live list until stop or its end, counting its events.
func follow(base, token string, stop <-chan struct{}, events, replaced *atomic.Int64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/api/messages/stream", nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+token)
	// Stopped from the outside; the goroutine ends with the stream too.
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "event: messages":
			events.Add(1)
		case strings.HasPrefix(line, "data: ") && strings.Contains(line, `"stream/replaced"`):
			replaced.Add(1)
			return
		}
	}
}

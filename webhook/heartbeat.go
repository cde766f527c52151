package webhook

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Heartbeat requests a monitor's URL (config scheduler.heartbeat_url) after
// each delivery pass that no error stopped, healthchecks.io style, so that an
// outside monitor notices a scheduler that stopped. The operator chose the
// URL, so inside addresses are allowed.
type Heartbeat struct {
	url    string
	client *http.Client
}

// NewHeartbeat returns the heartbeat of url with a per-request timeout.
func NewHeartbeat(url string, timeout time.Duration) *Heartbeat {
	return &Heartbeat{url: url, client: &http.Client{Timeout: timeout}}
}

// Beat sends one GET; an answer of 300 or more is an error.
func (h *Heartbeat) Beat(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("heartbeat %s: HTTP %d", h.url, resp.StatusCode)
	}
	return nil
}

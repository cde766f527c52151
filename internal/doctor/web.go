package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"slices"
	"time"
)

// HealthPath is the server's health check, under base_url.
const HealthPath = "/healthz"

// health is /healthz's reply: a reply with these three fields, status one
// of its words, is Sendlater's.
type health struct {
	Status    string `json:"status"`
	Store     string `json:"store"`
	Scheduler string `json:"scheduler"`
}

// CheckWeb asks base_url's health check, through client (its timeout
// bounds the wait), and checks that Sendlater answers there, healthy.
func CheckWeb(ctx context.Context, client *http.Client, baseURL string) Section {
	const check = "base_url"
	s := Section{Name: "web", Title: "Web: base_url " + baseURL}
	url := baseURL + HealthPath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		s.fail(check, err.Error(), "set base_url to the address people open, e.g. https://sendlater.example")
		return s
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		s.fail(check, fmt.Sprintf("GET %s: %v", url, err),
			"start sendlater serve, or set base_url to the address at which it answers (behind a proxy: the proxy's), and check that this machine reaches it (DNS, firewall)")
		return s
	}
	defer resp.Body.Close()
	took := time.Since(start).Round(time.Millisecond)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var h health
	if json.Unmarshal(body, &h) != nil || !slices.Contains([]string{"ok", "degraded", "unavailable"}, h.Status) || h.Store == "" || h.Scheduler == "" {
		s.fail(check, fmt.Sprintf("GET %s answered %s (%s) but not as Sendlater's health check: something else answers at base_url", url, resp.Status, resp.Header.Get("Content-Type")),
			"point base_url at this Sendlater (behind a proxy: check that the proxy passes "+HealthPath+" to sendlater serve's addr)")
		return s
	}
	switch {
	case h.Status == "unavailable" || resp.StatusCode != http.StatusOK:
		s.fail(check, fmt.Sprintf("Sendlater answers at %s, but its store does not (%s, store %s)", url, resp.Status, h.Store),
			"read the server's log; `sendlater doctor store` checks the store from here")
	case h.Status == "degraded":
		s.fail(check, fmt.Sprintf("Sendlater answers at %s, but its delivery is stalled (scheduler %s): no delivery pass finished lately", url, h.Scheduler),
			"`sendlater status` shows the passes and their errors; run a scheduler (serve without --no-scheduler, or the send-due timer)")
	default:
		s.pass(check, fmt.Sprintf("Sendlater answers at %s in %s: status %s, store %s, scheduler %s", url, took, h.Status, h.Store, h.Scheduler))
	}
	return s
}

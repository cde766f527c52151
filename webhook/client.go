// Package webhook makes Sendlater's outgoing HTTP calls: the business
// webhooks of delivered messages, through a dialer that refuses inside
// addresses, and the scheduler's heartbeat to an outside monitor.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/sendlater/sendlater/core"
)

// DefaultTimeout bounds one request, connection included.
const DefaultTimeout = 10 * time.Second

// Client posts business webhooks (core.WebhookSender). Unless private
// destinations are allowed it refuses loopback, private, link-local and other
// non-public addresses, checked on the address actually dialled after name
// resolution, so a name that resolves (or rebinds) to an inside address is
// refused too. It follows no redirects and uses no proxy.
type Client struct {
	client *http.Client
}

var _ core.WebhookSender = (*Client)(nil)

// errForbiddenDestination is returned by the dialer for a refused address.
var errForbiddenDestination = errors.New("webhook destinations on loopback, private or link-local addresses are refused (webhooks.allow_private)")

// NewClient returns a client with the given per-request timeout; allowPrivate
// is config webhooks.allow_private.
func NewClient(allowPrivate bool, timeout time.Duration) *Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !publicAddr(ap.Addr()) {
				return errForbiddenDestination
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Client{client: &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// sharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT), not public.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// publicAddr reports whether a may receive webhooks by default.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsValid() && a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() &&
		!a.IsLinkLocalUnicast() && !sharedAddressSpace.Contains(a)
}

// Post sends body to target. A 2xx answer is success; a 408, 429 or 5xx
// answer or a network failure may pass later (*core.TemporaryError); other
// answers and refused destinations are permanent.
func (c *Client) Post(ctx context.Context, target string, body []byte, headers map[string]string) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("webhook URL %q must be an absolute http(s) URL without credentials", target)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "Sendlater-Webhook/1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if errors.Is(err, errForbiddenDestination) {
			return fmt.Errorf("webhook %s: %w", u.Host, errForbiddenDestination)
		}
		return &core.TemporaryError{Err: fmt.Errorf("webhook %s: %w", u.Host, err)}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		return &core.TemporaryError{Err: fmt.Errorf("webhook %s: HTTP %d", u.Host, resp.StatusCode)}
	}
	return fmt.Errorf("webhook %s: HTTP %d", u.Host, resp.StatusCode)
}

package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sendlater/sendlater/core"
)

// DefaultClientTimeout bounds one request of an APIClient (not its live
// list).
const DefaultClientTimeout = 30 * time.Second

// transport speaks the envelope of API.md to one server: the public API over
// TCP, or the admin socket.
type transport struct {
	http *http.Client
	base string      // scheme and host, e.g. https://sendlater.example
	name string      // what did not answer, for errors
	head http.Header // sent with every request: the bearer, or who an operator acts for
	// timeout bounds each request that do sends; zero: none.
	timeout time.Duration
}

// do sends a request and decodes the envelope's data into out (nil: none).
func (t *transport) do(ctx context.Context, method, path string, body, out any) error {
	return t.doWith(ctx, method, path, nil, body, out)
}

// page gets a page of a list into out and returns the next page's cursor.
func (t *transport) page(ctx context.Context, path string, out any) (next string, err error) {
	if t.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	resp, err := t.send(ctx, "GET", path, nil, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	env, err := readEnvelope(resp, out)
	return env.NextCursor, err
}

// doWith is do with more headers.
func (t *transport) doWith(ctx context.Context, method, path string, header http.Header, body, out any) error {
	if t.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	resp, err := t.send(ctx, method, path, header, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decodeEnvelope(resp, out)
}

// send sends a request with more headers (nil: none) and body as JSON (nil:
// none) and returns the reply as it comes.
func (t *transport) send(ctx context.Context, method, path string, header http.Header, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.base+path, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range t.head {
		req.Header[k] = v
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := t.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, core.Errorf(core.EUnavailable, "%s did not answer: %v", t.name, err)
	}
	return resp, nil
}

// envelope is a reply of the API as a client reads it.
type envelope struct {
	Status     string            `json:"status"`
	Code       string            `json:"code"`
	Message    string            `json:"message"`
	Fields     map[string]string `json:"fields"`
	Data       json.RawMessage   `json:"data"`
	NextCursor string            `json:"nextCursor"`
}

// decodeEnvelope turns an API reply into data or the *core.Error it carries,
// with the server's code, message and fields.
func decodeEnvelope(resp *http.Response, out any) error {
	_, err := readEnvelope(resp, out)
	return err
}

// readEnvelope is decodeEnvelope that returns the envelope too.
func readEnvelope(resp *http.Response, out any) (envelope, error) {
	var env envelope
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&env); err != nil {
		return env, fmt.Errorf("reading reply (HTTP %d): %w", resp.StatusCode, err)
	}
	if env.Status != "success" {
		e := &core.Error{Code: env.Code, Message: env.Message, Fields: env.Fields}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			e.RetryAfter = time.Duration(s) * time.Second
		}
		return env, e
	}
	if out == nil {
		return env, nil
	}
	return env, json.Unmarshal(env.Data, out)
}

func pageQuery(q url.Values, offset, limit int) string {
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

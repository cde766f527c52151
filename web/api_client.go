package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// APIClient implements core.Messages and core.Account over the JSON API:
// the public API with a bearer token (an ID token or a personal access
// token; NewAPIClient), or the admin socket acting for a user
// (AdminClient.As). Who acts is fixed by the client, not by the identity in
// ctx. A failure the server answers comes back as *core.Error with its code,
// message and fields, so a front end shows the same validation messages as
// the web app; a server that does not answer is service/unavailable.
type APIClient struct {
	t transport
}

var (
	_ core.Messages = (*APIClient)(nil)
	_ core.Account  = (*APIClient)(nil)
)

// NewAPIClient returns a client of the API at baseURL (scheme and host, e.g.
// https://sendlater.example) that sends token as its bearer. timeout bounds
// each request but the live list; zero: DefaultClientTimeout.
func NewAPIClient(baseURL, token string, timeout time.Duration) *APIClient {
	if timeout <= 0 {
		timeout = DefaultClientTimeout
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		IdleConnTimeout:       90 * time.Second,
	}
	return &APIClient{t: transport{
		http: &http.Client{Transport: tr},
		base: strings.TrimRight(baseURL, "/"), name: "The server at " + baseURL,
		head: http.Header{"Authorization": {"Bearer " + token}}, timeout: timeout,
	}}
}

// ChannelHeader names the client's channel for the server's metrics
// (core.ChannelOf): the terminal app sends core.ChannelTUI; any other
// value is ignored, so its label keeps its few values.
const ChannelHeader = "Sendlater-Channel"

// Through returns a copy of c that tells the server its requests come
// through channel (ChannelHeader), e.g. core.ChannelTUI.
func (c *APIClient) Through(channel string) *APIClient {
	t := c.t
	t.head = t.head.Clone()
	t.head.Set(ChannelHeader, channel)
	return &APIClient{t: t}
}

func messagePath(id string) string { return "/api/messages/" + url.PathEscape(id) }

func (c *APIClient) message(ctx context.Context, method, path string, header http.Header, body any) (*core.Message, error) {
	var out MessageJSON
	if err := c.t.doWith(ctx, method, path, header, body, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

// List returns a page of the author's messages, newest first.
func (c *APIClient) List(ctx context.Context, p core.Page) (*core.MessagePage, error) {
	q := url.Values{}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	var out []*MessageJSON
	next, err := c.t.page(ctx, "/api/messages"+pageQuery(q, 0, p.Limit), &out)
	if err != nil {
		return nil, err
	}
	return &core.MessagePage{Messages: messagesCore(out), NextCursor: next}, nil
}

func (c *APIClient) Get(ctx context.Context, id string) (*core.Message, error) {
	return c.message(ctx, "GET", messagePath(id), nil, nil)
}

// Create sends in.IdempotencyKey, when set, as the Idempotency-Key header:
// a retry of the same call makes no second message.
func (c *APIClient) Create(ctx context.Context, in core.MessageInput) (*core.Message, error) {
	var header http.Header
	if in.IdempotencyKey != "" {
		header = http.Header{IdempotencyKeyHeader: {in.IdempotencyKey}}
	}
	return c.message(ctx, "POST", "/api/messages", header, createMessageRequest{
		Title: in.Title, Name: in.Name, Recipient: in.Recipient, Message: in.Body,
		Interval: in.Interval, WebhookURL: in.WebhookURL, Recipients: recipientInputsJSON(in.Recipients),
		ID: in.ID, Sealed: sealedJSON(in.Sealed),
	})
}

func (c *APIClient) Update(ctx context.Context, id string, up core.MessageUpdate) (*core.Message, error) {
	return c.message(ctx, "PATCH", messagePath(id), nil, updateRequestOf(up))
}

// updateRequestOf is up as PATCH /api/messages/{id} takes it.
func updateRequestOf(up core.MessageUpdate) updateMessageRequest {
	return updateMessageRequest{
		Title: up.Title, Name: up.Name, Recipient: up.Recipient, Message: up.Body,
		Interval: up.Interval, IsActive: up.IsActive, WebhookURL: up.WebhookURL,
		Recipients: recipientInputsJSONPtr(up.Recipients), Sealed: sealedJSON(up.Sealed),
	}
}

// Events returns the message's timeline, oldest first.
func (c *APIClient) Events(ctx context.Context, id string) ([]*core.MessageEvent, error) {
	var out []EventJSON
	if err := c.t.do(ctx, "GET", messagePath(id)+"/events", nil, &out); err != nil {
		return nil, err
	}
	return eventsCore(id, out), nil
}

func (c *APIClient) Postpone(ctx context.Context, id string) (*core.Message, error) {
	return c.message(ctx, "POST", messagePath(id)+"/postpone", nil, nil)
}

func (c *APIClient) Delete(ctx context.Context, id string) error {
	return c.t.do(ctx, "DELETE", messagePath(id), nil, nil)
}

func (c *APIClient) sessionUser(ctx context.Context, method string, body any) (*core.SessionUser, error) {
	var out SessionUserJSON
	if err := c.t.do(ctx, method, "/api/me", body, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *APIClient) Me(ctx context.Context) (*core.SessionUser, error) {
	return c.sessionUser(ctx, "GET", nil)
}

func (c *APIClient) UpdateProfile(ctx context.Context, up core.ProfileUpdate) (*core.SessionUser, error) {
	return c.sessionUser(ctx, "PATCH", profileRequest{Name: up.Name, Email: up.Email, Picture: up.Picture, Timezone: up.Timezone,
		ReminderLadder: up.ReminderLadder, ReminderAddress: up.ReminderAddress})
}

// SignOut ends the client's session, or revokes its access token: the
// client acts for no one after.
func (c *APIClient) SignOut(ctx context.Context) error {
	return c.t.do(ctx, "POST", "/api/auth/signout", nil, nil)
}

func (c *APIClient) CreateAccessToken(ctx context.Context, name string, scopes []string) (core.AccessTokenInfo, string, error) {
	var out CreatedTokenJSON
	if err := c.t.do(ctx, "POST", "/api/me/tokens", createTokenRequest{Name: name, Scopes: scopes}, &out); err != nil {
		return core.AccessTokenInfo{}, "", err
	}
	return out.AccessTokenJSON.Core(), out.Token, nil
}

func (c *APIClient) ListAccessTokens(ctx context.Context) ([]core.AccessTokenInfo, error) {
	var out []AccessTokenJSON
	if err := c.t.do(ctx, "GET", "/api/me/tokens", nil, &out); err != nil {
		return nil, err
	}
	return each(out, AccessTokenJSON.Core), nil
}

func (c *APIClient) RevokeAccessToken(ctx context.Context, id string) error {
	return c.t.do(ctx, "DELETE", "/api/me/tokens/"+url.PathEscape(id), nil, nil)
}

func recipientInputsJSONPtr(rs *[]core.RecipientInput) *[]RecipientInputJSON {
	if rs == nil {
		return nil
	}
	js := recipientInputsJSON(*rs)
	if js == nil {
		js = []RecipientInputJSON{}
	}
	return &js
}

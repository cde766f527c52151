package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sendlater/sendlater/core"
)

// AdminClient implements core.Admin over the admin socket of a running server.
type AdminClient struct {
	http *http.Client
}

// DialAdmin connects to the admin socket at path. It fails at once when no
// server answers there.
func DialAdmin(path string) (*AdminClient, error) {
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return nil, err
	}
	conn.Close()
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
	return &AdminClient{http: &http.Client{Transport: &http.Transport{DialContext: dial}}}, nil
}

// do sends a request to the admin API and decodes the envelope's data into out.
func (c *AdminClient) do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decodeEnvelope(resp, out)
}

func (c *AdminClient) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://sendlater"+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, core.Errorf(core.EUnavailable, "The server's admin socket did not answer: %v", err)
	}
	return resp, nil
}

// decodeEnvelope turns an API reply into data or the *core.Error it carries.
func decodeEnvelope(resp *http.Response, out any) error {
	var env struct {
		Status  string            `json:"status"`
		Code    string            `json:"code"`
		Message string            `json:"message"`
		Fields  map[string]string `json:"fields"`
		Data    json.RawMessage   `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("reading reply (HTTP %d): %w", resp.StatusCode, err)
	}
	if env.Status != "success" {
		return &core.Error{Code: env.Code, Message: env.Message, Fields: env.Fields}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(env.Data, out)
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

func (c *AdminClient) ListUsers(ctx context.Context, f core.UserFilter) ([]*core.User, int, error) {
	q := url.Values{}
	if f.Email != "" {
		q.Set("email", f.Email)
	}
	var out listJSON[*userJSON]
	if err := c.do(ctx, "GET", "/admin/users"+pageQuery(q, f.Offset, f.Limit), nil, &out); err != nil {
		return nil, 0, err
	}
	users := make([]*core.User, len(out.Items))
	for i, u := range out.Items {
		users[i] = u.user()
	}
	return users, out.Total, nil
}

func (c *AdminClient) FindUser(ctx context.Context, idOrEmail string) (*core.User, error) {
	var out userJSON
	if err := c.do(ctx, "GET", "/admin/users/"+url.PathEscape(idOrEmail), nil, &out); err != nil {
		return nil, err
	}
	return out.user(), nil
}

func (c *AdminClient) SetPlan(ctx context.Context, idOrEmail string, plan core.PlanID, status string) (*core.User, error) {
	var out userJSON
	req := setPlanRequest{Plan: plan, Status: status}
	if err := c.do(ctx, "POST", "/admin/users/"+url.PathEscape(idOrEmail)+"/plan", req, &out); err != nil {
		return nil, err
	}
	return out.user(), nil
}

func (c *AdminClient) ListMessages(ctx context.Context, user string, f core.MessageFilter) ([]*core.Message, int, error) {
	q := url.Values{}
	if user != "" {
		q.Set("user", user)
	}
	var out listJSON[*messageJSON]
	if err := c.do(ctx, "GET", "/admin/messages"+pageQuery(q, f.Offset, f.Limit), nil, &out); err != nil {
		return nil, 0, err
	}
	ms := make([]*core.Message, len(out.Items))
	for i, m := range out.Items {
		ms[i] = m.message()
	}
	return ms, out.Total, nil
}

func (c *AdminClient) FindMessage(ctx context.Context, id string) (*core.Message, error) {
	var out messageJSON
	if err := c.do(ctx, "GET", "/admin/messages/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return out.message(), nil
}

// Backup copies the server's store to w. A copy cut short by the server is an
// error, never a silently truncated file.
func (c *AdminClient) Backup(ctx context.Context, w io.Writer) (int64, error) {
	resp, err := c.send(ctx, "GET", "/admin/backup", nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, decodeEnvelope(resp, nil)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("backup cut short after %d bytes: %w", n, err)
	}
	return n, nil
}

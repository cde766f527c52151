package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sendlater/sendlater/core"
)

// AdminClient implements core.Admin over the admin socket of a running
// server; As gives its author routes for one user.
type AdminClient struct {
	t transport
}

var _ core.Admin = (*AdminClient)(nil)

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
	// No timeout: a delivery pass or a backup takes as long as it takes.
	return &AdminClient{t: transport{
		http: &http.Client{Transport: &http.Transport{DialContext: dial}},
		base: "http://sendlater", name: "The server's admin socket",
	}}, nil
}

// As returns the client of the socket's author routes acting for user (an
// id or an email address): the messages and account of that user, as an
// operator.
func (c *AdminClient) As(user string) *APIClient {
	t := c.t
	t.head = http.Header{ActAsHeader: {user}}
	t.timeout = DefaultClientTimeout
	return &APIClient{t: t}
}

func (c *AdminClient) ListUsers(ctx context.Context, f core.UserFilter) ([]*core.User, int, error) {
	q := url.Values{}
	if f.Email != "" {
		q.Set("email", f.Email)
	}
	var out listJSON[*UserJSON]
	if err := c.t.do(ctx, "GET", "/admin/users"+pageQuery(q, f.Offset, f.Limit), nil, &out); err != nil {
		return nil, 0, err
	}
	return each(out.Items, (*UserJSON).Core), out.Total, nil
}

func (c *AdminClient) FindUser(ctx context.Context, idOrEmail string) (*core.User, error) {
	var out UserJSON
	if err := c.t.do(ctx, "GET", "/admin/users/"+url.PathEscape(idOrEmail), nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) SetPlan(ctx context.Context, idOrEmail string, plan core.PlanID, status string) (*core.User, error) {
	var out UserJSON
	req := setPlanRequest{Plan: plan, Status: status}
	if err := c.t.do(ctx, "POST", "/admin/users/"+url.PathEscape(idOrEmail)+"/plan", req, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) ListMessages(ctx context.Context, user string, f core.MessageFilter) ([]*core.Message, int, error) {
	q := url.Values{}
	if user != "" {
		q.Set("user", user)
	}
	if f.Status != "" {
		q.Set("status", string(f.Status))
	}
	if !f.DueBefore.IsZero() {
		q.Set("dueBefore", strconv.FormatInt(millis(f.DueBefore), 10))
	}
	var out listJSON[*MessageJSON]
	if err := c.t.do(ctx, "GET", "/admin/messages"+pageQuery(q, f.Offset, f.Limit), nil, &out); err != nil {
		return nil, 0, err
	}
	return messagesCore(out.Items), out.Total, nil
}

func (c *AdminClient) FindMessage(ctx context.Context, id string) (*core.Message, error) {
	var out MessageJSON
	if err := c.t.do(ctx, "GET", "/admin/messages/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) MessageOutbox(ctx context.Context, id string) (*core.OutboxItem, error) {
	var out OutboxItemJSON
	if err := c.t.do(ctx, "GET", "/admin/messages/"+url.PathEscape(id)+"/outbox", nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) MessageEvents(ctx context.Context, id string) ([]*core.MessageEvent, error) {
	var out []EventJSON
	if err := c.t.do(ctx, "GET", "/admin/messages/"+url.PathEscape(id)+"/events", nil, &out); err != nil {
		return nil, err
	}
	return eventsCore(id, out), nil
}

// Backup copies the server's store to w. A copy cut short by the server is an
// error, never a silently truncated file.
func (c *AdminClient) Backup(ctx context.Context, w io.Writer) (int64, error) {
	resp, err := c.t.send(ctx, "GET", "/admin/backup", nil, nil)
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
func (c *AdminClient) SendDue(ctx context.Context) (core.PassResult, error) {
	var res PassJSON
	err := c.t.do(ctx, "POST", "/admin/send-due", nil, &res)
	return res.Core(), err
}

func (c *AdminClient) PreviewDue(ctx context.Context, at time.Time) ([]core.DueSend, error) {
	var due []DueSendJSON
	q := url.Values{"at": {at.Format(time.RFC3339Nano)}}
	if err := c.t.do(ctx, "GET", "/admin/due?"+q.Encode(), nil, &due); err != nil {
		return nil, err
	}
	return each(due, DueSendJSON.Core), nil
}

func (c *AdminClient) Passes(ctx context.Context) ([]core.PassResult, error) {
	var passes []PassJSON
	if err := c.t.do(ctx, "GET", "/admin/passes", nil, &passes); err != nil {
		return nil, err
	}
	return each(passes, PassJSON.Core), nil
}

func (c *AdminClient) DeliveryHealth(ctx context.Context) (core.DeliveryHealth, error) {
	var h DeliveryHealthJSON
	err := c.t.do(ctx, "GET", "/admin/health", nil, &h)
	return h.Core(), err
}

func (c *AdminClient) RescheduleMessage(ctx context.Context, id string, at time.Time) (*core.Message, error) {
	var out MessageJSON
	if err := c.t.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+"/reschedule", rescheduleRequest{At: at}, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) DeliverNow(ctx context.Context, id string) (*core.Message, core.PassResult, error) {
	var out deliverNowReply
	if err := c.t.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+"/deliver-now", nil, &out); err != nil {
		return nil, out.Pass.Core(), err
	}
	return out.Message.Core(), out.Pass.Core(), nil
}

func (c *AdminClient) SetMessageActive(ctx context.Context, id string, active bool) (*core.Message, error) {
	action := "/pause"
	if active {
		action = "/resume"
	}
	var out MessageJSON
	if err := c.t.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+action, nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) SyncBilling(ctx context.Context, idOrEmail string) ([]core.BillingChange, error) {
	var out []BillingChangeJSON
	if err := c.t.do(ctx, "POST", "/admin/billing/sync", syncBillingRequest{User: idOrEmail}, &out); err != nil {
		return nil, err
	}
	return each(out, BillingChangeJSON.Core), nil
}

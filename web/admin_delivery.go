package web

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The admin socket's delivery controls.

func (s *AdminServer) handleSendDue(w http.ResponseWriter, r *http.Request) {
	res, err := s.Admin.SendDue(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, res)
}

func (s *AdminServer) handlePreviewDue(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if v := r.URL.Query().Get("at"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			writeError(w, r, core.Errorf(core.EInvalid, "at must be an RFC 3339 time."))
			return
		}
		at = t
	}
	due, err := s.Admin.PreviewDue(r.Context(), at)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, due)
}

func (s *AdminServer) handlePasses(w http.ResponseWriter, r *http.Request) {
	passes, err := s.Admin.Passes(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, passes)
}

type rescheduleRequest struct {
	At time.Time `json:"at"`
}

func (s *AdminServer) handleReschedule(w http.ResponseWriter, r *http.Request) {
	var req rescheduleRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := s.Admin.RescheduleMessage(r.Context(), r.PathValue("id"), req.At)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, newAdminMessageJSON(m))
}

type deliverNowReply struct {
	Message *messageJSON    `json:"message"`
	Pass    core.PassResult `json:"pass"`
}

func (s *AdminServer) handleDeliverNow(w http.ResponseWriter, r *http.Request) {
	m, res, err := s.Admin.DeliverNow(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, deliverNowReply{Message: newAdminMessageJSON(m), Pass: res})
}

func (s *AdminServer) handleSetActive(active bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, err := s.Admin.SetMessageActive(r.Context(), r.PathValue("id"), active)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, newAdminMessageJSON(m))
	}
}

func (c *AdminClient) SendDue(ctx context.Context) (core.PassResult, error) {
	var res core.PassResult
	err := c.do(ctx, "POST", "/admin/send-due", nil, &res)
	return res, err
}

func (c *AdminClient) PreviewDue(ctx context.Context, at time.Time) ([]core.DueSend, error) {
	var due []core.DueSend
	q := url.Values{"at": {at.Format(time.RFC3339Nano)}}
	err := c.do(ctx, "GET", "/admin/due?"+q.Encode(), nil, &due)
	return due, err
}

func (c *AdminClient) Passes(ctx context.Context) ([]core.PassResult, error) {
	var passes []core.PassResult
	err := c.do(ctx, "GET", "/admin/passes", nil, &passes)
	return passes, err
}

func (c *AdminClient) RescheduleMessage(ctx context.Context, id string, at time.Time) (*core.Message, error) {
	var out messageJSON
	if err := c.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+"/reschedule", rescheduleRequest{At: at}, &out); err != nil {
		return nil, err
	}
	return out.message(), nil
}

func (c *AdminClient) DeliverNow(ctx context.Context, id string) (*core.Message, core.PassResult, error) {
	var out deliverNowReply
	if err := c.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+"/deliver-now", nil, &out); err != nil {
		return nil, out.Pass, err
	}
	return out.Message.message(), out.Pass, nil
}

func (c *AdminClient) SetMessageActive(ctx context.Context, id string, active bool) (*core.Message, error) {
	action := "/pause"
	if active {
		action = "/resume"
	}
	var out messageJSON
	if err := c.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+action, nil, &out); err != nil {
		return nil, err
	}
	return out.message(), nil
}

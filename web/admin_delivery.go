package web

import (
	"net/http"
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
	writeData(w, http.StatusOK, NewPassJSON(res))
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
	writeData(w, http.StatusOK, each(due, NewDueSendJSON))
}

func (s *AdminServer) handlePasses(w http.ResponseWriter, r *http.Request) {
	passes, err := s.Admin.Passes(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(passes, NewPassJSON))
}

func (s *AdminServer) handleHealth(w http.ResponseWriter, r *http.Request) {
	h, err := s.Admin.DeliveryHealth(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewDeliveryHealthJSON(h))
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
	writeData(w, http.StatusOK, NewAdminMessageJSON(m))
}

type deliverNowReply struct {
	Message *MessageJSON `json:"message"`
	Pass    PassJSON     `json:"pass"`
}

func (s *AdminServer) handleDeliverNow(w http.ResponseWriter, r *http.Request) {
	m, res, err := s.Admin.DeliverNow(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, deliverNowReply{Message: NewAdminMessageJSON(m), Pass: NewPassJSON(res)})
}

func (s *AdminServer) handleSetActive(active bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, err := s.Admin.SetMessageActive(r.Context(), r.PathValue("id"), active)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, NewAdminMessageJSON(m))
	}
}

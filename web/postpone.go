package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// The reminder email's postpone link (API.md): no sign-in, the postpone code
// instead. GET shows and changes nothing (mail scanners open links); POST
// postpones.

type postponeViewJSON struct {
	Title    string             `json:"title"`
	SendDate int64              `json:"sendDate"`
	Interval core.Interval      `json:"interval"`
	Status   core.MessageStatus `json:"status"`
	// PostponeTo is the date the button would move the message to now;
	// PostponeBlockedUntil, when that is the date it already has, the
	// instant from which a postpone would move it.
	PostponeTo           int64  `json:"postponeTo"`
	PostponeBlockedUntil *int64 `json:"postponeBlockedUntil,omitempty"`
}

func (s *Server) handleShowPostpone(w http.ResponseWriter, r *http.Request) {
	v, err := s.Postpone.Show(r.Context(), r.PathValue("id"), r.URL.Query().Get("code"), clientIP(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, postponeViewJSON{Title: v.Title, SendDate: millis(v.SendDate), Interval: v.Interval, Status: v.Status,
		PostponeTo: millis(v.PostponeTo), PostponeBlockedUntil: optMillis(v.BlockedUntil)})
}

type postponeRequest struct {
	Code string `json:"code"`
}

type postponeReply struct {
	SendDate int64 `json:"sendDate"`
}

func (s *Server) handlePostponeByCode(w http.ResponseWriter, r *http.Request) {
	var req postponeRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	at, err := s.Postpone.Postpone(r.Context(), r.PathValue("id"), req.Code, clientIP(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, postponeReply{SendDate: millis(at)})
}

type webhookSecretReply struct {
	Secret string `json:"secret"`
}

// handleRotateWebhookSecret makes a new webhook signing secret and shows it,
// once.
func (s *Server) handleRotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	secret, err := s.WebhookSecrets.Rotate(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, webhookSecretReply{Secret: secret})
}

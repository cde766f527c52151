package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

func (s *Server) handleListMessages(w http.ResponseWriter, r *http.Request) {
	ms, err := s.Messages.List(r.Context(), identity(r).UserID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessages(w, http.StatusOK, ms)
}

type createMessageRequest struct {
	Title      string        `json:"title"`
	Name       string        `json:"name"`
	Recipient  string        `json:"recipient"`
	Message    string        `json:"message"`
	Interval   core.Interval `json:"interval"`
	WebhookURL string        `json:"webhookUrl"`
}

func (s *Server) handleCreateMessage(w http.ResponseWriter, r *http.Request) {
	var req createMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := s.Messages.Create(r.Context(), identity(r).UserID, core.MessageInput{
		Title: req.Title, Name: req.Name, Recipient: req.Recipient, Body: req.Message,
		Interval: req.Interval, WebhookURL: req.WebhookURL,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusCreated, m)
}

func (s *Server) handleGetMessage(w http.ResponseWriter, r *http.Request) {
	m, err := s.Messages.Get(r.Context(), identity(r).UserID, r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

// updateMessageRequest is a partial edit: an absent or null field is left
// as it is.
type updateMessageRequest struct {
	Title      *string        `json:"title"`
	Name       *string        `json:"name"`
	Recipient  *string        `json:"recipient"`
	Message    *string        `json:"message"`
	Interval   *core.Interval `json:"interval"`
	IsActive   *bool          `json:"isActive"`
	WebhookURL *string        `json:"webhookUrl"`
}

func (s *Server) handleUpdateMessage(w http.ResponseWriter, r *http.Request) {
	var req updateMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := s.Messages.Update(r.Context(), identity(r).UserID, r.PathValue("id"), core.MessageUpdate{
		Title: req.Title, Name: req.Name, Recipient: req.Recipient, Body: req.Message,
		Interval: req.Interval, IsActive: req.IsActive, WebhookURL: req.WebhookURL,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

func (s *Server) handlePostponeMessage(w http.ResponseWriter, r *http.Request) {
	m, err := s.Messages.Postpone(r.Context(), identity(r).UserID, r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

func (s *Server) handleDeleteMessage(w http.ResponseWriter, r *http.Request) {
	if err := s.Messages.Delete(r.Context(), identity(r).UserID, r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

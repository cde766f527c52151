package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

func (a *authorAPI) handleListMessages(w http.ResponseWriter, r *http.Request) {
	ms, err := a.messages.List(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessages(w, http.StatusOK, ms)
}

// IdempotencyKeyHeader makes a POST /api/messages safe to retry.
const IdempotencyKeyHeader = "Idempotency-Key"

// createMessageRequest is POST /api/messages.
type createMessageRequest struct {
	Title      string        `json:"title"`
	Name       string        `json:"name"`
	Recipient  string        `json:"recipient"`
	Message    string        `json:"message"`
	Interval   core.Interval `json:"interval,omitempty"`
	WebhookURL string        `json:"webhookUrl,omitempty"`
}

func (a *authorAPI) handleCreateMessage(w http.ResponseWriter, r *http.Request) {
	var req createMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	// A retry with the same Idempotency-Key gets the message the first made.
	m, err := a.messages.Create(r.Context(), core.MessageInput{
		Title: req.Title, Name: req.Name, Recipient: req.Recipient, Body: req.Message,
		Interval: req.Interval, WebhookURL: req.WebhookURL, IdempotencyKey: r.Header.Get(IdempotencyKeyHeader),
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusCreated, m)
}

func (a *authorAPI) handleGetMessage(w http.ResponseWriter, r *http.Request) {
	m, err := a.messages.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

// updateMessageRequest is a partial edit: an absent or null field is left
// as it is.
type updateMessageRequest struct {
	Title      *string        `json:"title,omitempty"`
	Name       *string        `json:"name,omitempty"`
	Recipient  *string        `json:"recipient,omitempty"`
	Message    *string        `json:"message,omitempty"`
	Interval   *core.Interval `json:"interval,omitempty"`
	IsActive   *bool          `json:"isActive,omitempty"`
	WebhookURL *string        `json:"webhookUrl,omitempty"`
}

func (a *authorAPI) handleUpdateMessage(w http.ResponseWriter, r *http.Request) {
	var req updateMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := a.messages.Update(r.Context(), r.PathValue("id"), core.MessageUpdate{
		Title: req.Title, Name: req.Name, Recipient: req.Recipient, Body: req.Message,
		Interval: req.Interval, IsActive: req.IsActive, WebhookURL: req.WebhookURL,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

func (a *authorAPI) handlePostponeMessage(w http.ResponseWriter, r *http.Request) {
	m, err := a.messages.Postpone(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

func (a *authorAPI) handleDeleteMessage(w http.ResponseWriter, r *http.Request) {
	if err := a.messages.Delete(r.Context(), r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

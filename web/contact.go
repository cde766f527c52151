package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// contactRequest is the contact form. Website is the honeypot: the SPA
// renders it hidden from people, so only bots fill it in.
type contactRequest struct {
	Name    string `json:"name"`
	Email   string `json:"email"`
	Message string `json:"message"`
	Website string `json:"website"`
}

func (s *Server) handleContact(w http.ResponseWriter, r *http.Request) {
	if s.Contact == nil {
		writeError(w, r, core.Errorf(core.EUnavailable, "The contact form is not available."))
		return
	}
	var req contactRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	err := s.Contact.Submit(r.Context(), core.ContactInput{
		Name: req.Name, Email: req.Email, Message: req.Message, Trap: req.Website,
	}, clientIP(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

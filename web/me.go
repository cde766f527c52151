package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// The account: the author's part (authorAPI, also on the admin socket) and
// the sensitive part only the public server serves.

func (a *authorAPI) handleMe(w http.ResponseWriter, r *http.Request) {
	su, err := a.account.Me(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeAppended(w, http.StatusOK, func(b []byte) []byte { return appendSessionUserJSON(b, su) })
}

// profileRequest is PATCH /api/me.
type profileRequest struct {
	Name     *string `json:"name,omitempty"`
	Email    *string `json:"email,omitempty"`
	Picture  *string `json:"picture,omitempty"`
	Timezone *string `json:"timezone,omitempty"`
	// The reminder ladder's steps ("3d", "1d", "2h") and the second
	// reminder address ("" removes it).
	ReminderLadder  *[]string `json:"reminderLadder,omitempty"`
	ReminderAddress *string   `json:"reminderAddress,omitempty"`
}

func (a *authorAPI) handleUpdateMe(w http.ResponseWriter, r *http.Request) {
	var req profileRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	su, err := a.account.UpdateProfile(r.Context(), core.ProfileUpdate{
		Name: req.Name, Email: req.Email, Picture: req.Picture, Timezone: req.Timezone,
		ReminderLadder: req.ReminderLadder, ReminderAddress: req.ReminderAddress,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewSessionUserJSON(su))
}

func (a *authorAPI) handleSignOut(w http.ResponseWriter, r *http.Request) {
	if err := a.account.SignOut(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	if a.signedOut != nil {
		a.signedOut(w)
	}
	writeData(w, http.StatusOK, nil)
}

func (a *authorAPI) handleListTokens(w http.ResponseWriter, r *http.Request) {
	ts, err := a.account.ListAccessTokens(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(ts, NewAccessTokenJSON))
}

// createTokenRequest is POST /api/me/tokens.
type createTokenRequest struct {
	Name string `json:"name"`
	// Scopes are what the token may do; absent (or null): messages:read
	// only.
	Scopes []string `json:"scopes,omitempty"`
}

func (a *authorAPI) handleCreateToken(w http.ResponseWriter, r *http.Request) {
	var req createTokenRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	t, secret, err := a.account.CreateAccessToken(r.Context(), req.Name, req.Scopes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusCreated, CreatedTokenJSON{AccessTokenJSON: NewAccessTokenJSON(t), Token: secret})
}

func (a *authorAPI) handleRevokeToken(w http.ResponseWriter, r *http.Request) {
	if err := a.account.RevokeAccessToken(r.Context(), r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleChangePassword(w http.ResponseWriter, r *http.Request) {
	var req passwordRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if err := s.Identities.ChangePassword(r.Context(), req.Password); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleSendVerification(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.SendEmailVerification(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

// handleSendReminderAddressConfirmation asks the second reminder address
// to confirm again (the settings' "resend").
func (s *Server) handleSendReminderAddressConfirmation(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.SendReminderAddressConfirmation(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleDeleteMe(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.DeleteAccount(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	s.clearRefreshCookie(w)
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	x, err := s.Identities.Export(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewAccountExportJSON(x))
}

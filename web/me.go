package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

func (s *Server) writeSessionUser(w http.ResponseWriter, u *core.User) {
	writeData(w, http.StatusOK, u.Session(s.Prices))
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) {
	u, err := s.Auth.User(r.Context(), identity(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeSessionUser(w, u)
}

type profileRequest struct {
	Name     *string `json:"name"`
	Email    *string `json:"email"`
	Picture  *string `json:"picture"`
	Timezone *string `json:"timezone"`
}

func (s *Server) handleUpdateMe(w http.ResponseWriter, r *http.Request) {
	var req profileRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	u, err := s.Auth.UpdateProfile(r.Context(), identity(r), core.ProfileUpdate{
		Name: req.Name, Email: req.Email, Picture: req.Picture, Timezone: req.Timezone,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeSessionUser(w, u)
}

func (s *Server) handleChangePassword(w http.ResponseWriter, r *http.Request) {
	var req passwordRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if err := s.Auth.ChangePassword(r.Context(), identity(r), req.Password); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleSendVerification(w http.ResponseWriter, r *http.Request) {
	if err := s.Auth.SendEmailVerification(r.Context(), identity(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleDeleteMe(w http.ResponseWriter, r *http.Request) {
	if err := s.Auth.DeleteAccount(r.Context(), identity(r)); err != nil {
		writeError(w, r, err)
		return
	}
	s.clearRefreshCookie(w)
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	x, err := s.Auth.Export(r.Context(), identity(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, x)
}

func (s *Server) handleListTokens(w http.ResponseWriter, r *http.Request) {
	ts, err := s.Auth.ListAccessTokens(r.Context(), identity(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]core.AccessTokenInfo, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Info())
	}
	writeData(w, http.StatusOK, out)
}

type createTokenRequest struct {
	Name string `json:"name"`
}

// createdTokenJSON is a new personal access token with its secret, which
// no later reply shows again.
type createdTokenJSON struct {
	core.AccessTokenInfo
	Token string `json:"token"`
}

func (s *Server) handleCreateToken(w http.ResponseWriter, r *http.Request) {
	var req createTokenRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	t, secret, err := s.Auth.CreateAccessToken(r.Context(), identity(r), req.Name)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusCreated, createdTokenJSON{AccessTokenInfo: t.Info(), Token: secret})
}

func (s *Server) handleRevokeToken(w http.ResponseWriter, r *http.Request) {
	if err := s.Auth.RevokeAccessToken(r.Context(), identity(r), r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

package web

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/sendlater/sendlater/core"
)

// holdRequest is PUT /api/me/hold: the end of the hold, ms since the epoch.
type holdRequest struct {
	Until *int64 `json:"until"`
}

func (a *authorAPI) handleHold(w http.ResponseWriter, r *http.Request) {
	var req holdRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if req.Until == nil {
		writeError(w, r, core.ValidationError(map[string]string{"until": "Please choose the date the hold ends"}))
		return
	}
	su, err := a.messages.Hold(r.Context(), time.UnixMilli(*req.Until))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewSessionUserJSON(su))
}

func (a *authorAPI) handleEndHold(w http.ResponseWriter, r *http.Request) {
	su, err := a.messages.EndHold(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewSessionUserJSON(su))
}

func (s *AdminServer) handleLiftHold(w http.ResponseWriter, r *http.Request) {
	u, err := s.Admin.LiftHold(r.Context(), r.PathValue("user"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewUserJSON(u, s.Prices))
}

// LiftHold ends the user's hold now.
func (c *AdminClient) LiftHold(ctx context.Context, idOrEmail string) (*core.User, error) {
	var out UserJSON
	if err := c.t.do(ctx, "DELETE", "/admin/users/"+url.PathEscape(idOrEmail)+"/hold", nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

// Hold holds all the author's messages until until.
func (c *APIClient) Hold(ctx context.Context, until time.Time) (*core.SessionUser, error) {
	ms := until.UnixMilli()
	var out SessionUserJSON
	if err := c.t.do(ctx, "PUT", "/api/me/hold", holdRequest{Until: &ms}, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

// EndHold ends the author's hold now.
func (c *APIClient) EndHold(ctx context.Context) (*core.SessionUser, error) {
	var out SessionUserJSON
	if err := c.t.do(ctx, "DELETE", "/api/me/hold", nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

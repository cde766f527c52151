package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The admin socket's account, contact and audit routes (docs/cli.md "The command
// line"): each change is audited under the OS user of the peer process.

func (s *AdminServer) accountRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /admin/users", s.handleCreateUser)
	mux.HandleFunc("POST /admin/users/{user}/disable", s.handleSetDisabled(true))
	mux.HandleFunc("POST /admin/users/{user}/enable", s.handleSetDisabled(false))
	mux.HandleFunc("POST /admin/users/{user}/reset-2fa", s.handleResetSecondFactor)
	mux.HandleFunc("DELETE /admin/users/{user}", s.handleDeleteUser)
	mux.HandleFunc("GET /admin/users/{user}/export", s.handleExportUser)
	mux.HandleFunc("POST /admin/messages/{id}/postpone", s.handlePostponeMessage)
	mux.HandleFunc("DELETE /admin/messages/{id}", s.handleDeleteMessage)
	mux.HandleFunc("POST /admin/reveals", s.handleReveal)
	mux.HandleFunc("GET /admin/contacts", s.handleListContacts)
	mux.HandleFunc("GET /admin/audit", s.handleListAudit)
}

type createUserRequest struct {
	Email    string `json:"email"`
	Name     string `json:"name"`
	Password string `json:"password"`
}

func (s *AdminServer) handleCreateUser(w http.ResponseWriter, r *http.Request) {
	var req createUserRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	c, err := s.Admin.CreateUser(r.Context(), core.NewUser{Email: req.Email, Name: req.Name, Password: req.Password})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusCreated, CreatedUserJSON{User: NewUserJSON(c.User, s.Prices), Link: c.Link})
}

func (s *AdminServer) handleSetDisabled(disabled bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, err := s.Admin.SetUserDisabled(r.Context(), r.PathValue("user"), disabled)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, NewUserJSON(u, s.Prices))
	}
}

func (s *AdminServer) handleResetSecondFactor(w http.ResponseWriter, r *http.Request) {
	u, err := s.Admin.ResetSecondFactor(r.Context(), r.PathValue("user"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewUserJSON(u, s.Prices))
}

func (s *AdminServer) handleDeleteUser(w http.ResponseWriter, r *http.Request) {
	if err := s.Admin.DeleteUser(r.Context(), r.PathValue("user")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *AdminServer) handleExportUser(w http.ResponseWriter, r *http.Request) {
	x, err := s.Admin.ExportUser(r.Context(), r.PathValue("user"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewAccountExportJSON(x))
}

func (s *AdminServer) handlePostponeMessage(w http.ResponseWriter, r *http.Request) {
	m, err := s.Admin.PostponeMessage(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewAdminMessageJSON(m))
}

func (s *AdminServer) handleDeleteMessage(w http.ResponseWriter, r *http.Request) {
	if err := s.Admin.DeleteMessage(r.Context(), r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

type revealRequest struct {
	IDs []string `json:"ids"`
}

func (s *AdminServer) handleReveal(w http.ResponseWriter, r *http.Request) {
	var req revealRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	ms, err := s.Admin.RevealMessages(r.Context(), req.IDs)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(ms, NewAdminMessageJSON))
}

func (s *AdminServer) handleListContacts(w http.ResponseWriter, r *http.Request) {
	_, limit := pageParams(r)
	cs, err := s.Admin.ListContacts(r.Context(), limit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(cs, NewContactJSON))
}

func (s *AdminServer) handleListAudit(w http.ResponseWriter, r *http.Request) {
	_, limit := pageParams(r)
	since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	es, err := s.Admin.ListAudit(r.Context(), fromMillis(since), limit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(es, NewAuditEntryJSON))
}

func (c *AdminClient) CreateUser(ctx context.Context, in core.NewUser) (*core.CreatedUser, error) {
	var out CreatedUserJSON
	if err := c.t.do(ctx, "POST", "/admin/users", createUserRequest{Email: in.Email, Name: in.Name, Password: in.Password}, &out); err != nil {
		return nil, err
	}
	return &core.CreatedUser{User: out.User.Core(), Link: out.Link}, nil
}

func (c *AdminClient) SetUserDisabled(ctx context.Context, idOrEmail string, disabled bool) (*core.User, error) {
	action := "/enable"
	if disabled {
		action = "/disable"
	}
	var out UserJSON
	if err := c.t.do(ctx, "POST", "/admin/users/"+url.PathEscape(idOrEmail)+action, nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) ResetSecondFactor(ctx context.Context, idOrEmail string) (*core.User, error) {
	var out UserJSON
	if err := c.t.do(ctx, "POST", "/admin/users/"+url.PathEscape(idOrEmail)+"/reset-2fa", nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) DeleteUser(ctx context.Context, idOrEmail string) error {
	return c.t.do(ctx, "DELETE", "/admin/users/"+url.PathEscape(idOrEmail), nil, nil)
}

func (c *AdminClient) ExportUser(ctx context.Context, idOrEmail string) (*core.AccountExport, error) {
	var out AccountExportJSON
	if err := c.t.do(ctx, "GET", "/admin/users/"+url.PathEscape(idOrEmail)+"/export", nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) PostponeMessage(ctx context.Context, id string) (*core.Message, error) {
	var out MessageJSON
	if err := c.t.do(ctx, "POST", "/admin/messages/"+url.PathEscape(id)+"/postpone", nil, &out); err != nil {
		return nil, err
	}
	return out.Core(), nil
}

func (c *AdminClient) DeleteMessage(ctx context.Context, id string) error {
	return c.t.do(ctx, "DELETE", "/admin/messages/"+url.PathEscape(id), nil, nil)
}

func (c *AdminClient) RevealMessages(ctx context.Context, ids []string) ([]*core.Message, error) {
	var out []*MessageJSON
	if err := c.t.do(ctx, "POST", "/admin/reveals", revealRequest{IDs: ids}, &out); err != nil {
		return nil, err
	}
	return messagesCore(out), nil
}

func (c *AdminClient) ListContacts(ctx context.Context, limit int) ([]*core.ContactSubmission, error) {
	var out []ContactJSON
	if err := c.t.do(ctx, "GET", "/admin/contacts"+pageQuery(url.Values{}, 0, limit), nil, &out); err != nil {
		return nil, err
	}
	return each(out, ContactJSON.Core), nil
}

func (c *AdminClient) ListAudit(ctx context.Context, since time.Time, limit int) ([]*core.AuditEntry, error) {
	q := url.Values{}
	if !since.IsZero() {
		q.Set("since", strconv.FormatInt(since.UnixMilli(), 10))
	}
	var out []AuditEntryJSON
	if err := c.t.do(ctx, "GET", "/admin/audit"+pageQuery(q, 0, limit), nil, &out); err != nil {
		return nil, err
	}
	return each(out, AuditEntryJSON.Core), nil
}

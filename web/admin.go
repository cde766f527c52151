package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/sendlater/sendlater/core"
)

// AdminServer answers the admin API (API.md "Admin socket") on a Unix socket
// in the data directory. Only the socket's file mode guards it: it is never
// served on TCP. Besides the operator's routes (/admin/...) it serves the
// author's routes (/api/messages..., /api/me...) for the user an operator
// names in the ActAsHeader.
type AdminServer struct {
	Admin core.Admin
	// Messages and Account serve the author routes for the user an
	// operator acts for: core.OperatorAudit's, which record what the
	// operator does and reads.
	Messages core.Messages
	Account  core.Account
	// Prices derive the plans the users' replies show.
	Prices core.PriceMap
	Logger *slog.Logger
	// StreamHeartbeat is as on Server.
	StreamHeartbeat time.Duration
	// PageViews reads the page-view counters (GET /admin/pageviews); nil:
	// the route answers not found.
	PageViews core.PageViewStats
	// Attachments serve the author's files routes for the user an operator
	// acts for (core.OperatorAudit's); nil: not served.
	Attachments core.Attachments

	httpServer *http.Server
	path       string
	shutdown   shutdown
}

// ActAsHeader names the user an operator acts for on the admin socket's
// author routes: a user id or an email address. The public server never
// reads it.
const ActAsHeader = "Sendlater-Act-As"

// Handler returns the admin API's handler.
func (s *AdminServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /admin/users", s.handleListUsers)
	mux.HandleFunc("GET /admin/users/{user}", s.handleShowUser)
	mux.HandleFunc("POST /admin/users/{user}/plan", s.handleSetPlan)
	mux.HandleFunc("DELETE /admin/users/{user}/hold", s.handleLiftHold)
	mux.HandleFunc("POST /admin/billing/sync", s.handleSyncBilling)
	mux.HandleFunc("GET /admin/messages", s.handleListMessages)
	mux.HandleFunc("GET /admin/messages/{id}", s.handleShowMessage)
	mux.HandleFunc("GET /admin/messages/{id}/outbox", s.handleMessageOutbox)
	mux.HandleFunc("GET /admin/messages/{id}/events", s.handleMessageEvents)
	mux.HandleFunc("GET /admin/backup", s.handleBackup)
	mux.HandleFunc("POST /admin/send-due", s.handleSendDue)
	mux.HandleFunc("GET /admin/due", s.handlePreviewDue)
	mux.HandleFunc("GET /admin/passes", s.handlePasses)
	mux.HandleFunc("GET /admin/health", s.handleHealth)
	mux.HandleFunc("POST /admin/messages/{id}/reschedule", s.handleReschedule)
	mux.HandleFunc("POST /admin/messages/{id}/deliver-now", s.handleDeliverNow)
	mux.HandleFunc("POST /admin/messages/{id}/pause", s.handleSetActive(false))
	mux.HandleFunc("POST /admin/messages/{id}/resume", s.handleSetActive(true))
	if s.PageViews != nil {
		mux.HandleFunc("GET /admin/pageviews", s.handlePageViews)
	}
	s.accountRoutes(mux)
	s.suppressionRoutes(mux)
	author := &authorAPI{messages: s.Messages, account: s.Account, heartbeat: s.StreamHeartbeat, stopping: s.shutdown.done()}
	author.routes(mux, s.actAs, s.actAs, func(h http.HandlerFunc) http.HandlerFunc { return h })
	if s.Attachments != nil {
		filesRoutes(mux, s.Attachments, s.actAs)
	}
	mux.HandleFunc("/", handleAPINotFound)
	l := s.Logger
	if l == nil {
		l = slog.Default()
	}
	// The socket gzips nothing: its clients run on the same machine.
	return withRequest(l.With("listener", "admin"), nil, nil, false, false, routed(mux))
}

// Open listens on the socket at path (mode 0600, created under umask 0077). A stale socket left by a
// crash is replaced; a live one means another server runs, an error.
func (s *AdminServer) Open(path string) error {
	if conn, err := net.DialTimeout("unix", path, time.Second); err == nil {
		conn.Close()
		return fmt.Errorf("another server answers on %s", path)
	}
	os.Remove(path)
	// Created private (umask 0077), never for a moment open to others; the
	// umask is the process's, so this runs before anything else starts.
	var ln net.Listener
	err := withUmask(0o077, func() (err error) {
		ln, err = net.Listen("unix", path)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return err
	}
	s.path = path
	s.httpServer = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ConnContext: peerActor}
	go func() {
		if err := s.httpServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.Logger.Error("admin socket", "err", err)
		}
	}()
	return nil
}

// actAs puts in the request's context the identity of an operator acting
// for the user the ActAsHeader names, who must exist. Bearer tokens are
// refused: on the socket the operator acts, not a session.
func (s *AdminServer) actAs(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			writeError(w, r, core.Errorf(core.EInvalidToken, "The admin socket takes no bearer token; name the user in the %s header.", ActAsHeader))
			return
		}
		who := r.Header.Get(ActAsHeader)
		if who == "" {
			writeError(w, r, core.Errorf(core.EInvalidToken, "Name the user to act for in the %s header.", ActAsHeader))
			return
		}
		u, err := s.Admin.FindUser(r.Context(), who)
		if err != nil {
			writeError(w, r, err)
			return
		}
		// The operator is the socket's peer (peerActor); what they do and
		// read for the user is recorded by core (core.OperatorAudit, which
		// Messages and Account must be).
		h(w, r.WithContext(core.ActAs(r.Context(), u.ID)))
	}
}

// Close stops the admin server, waiting for in-flight requests (message
// streams end at once), and removes the socket.
func (s *AdminServer) Close(ctx context.Context) error {
	s.shutdown.close()
	if s.httpServer == nil {
		return nil
	}
	err := s.httpServer.Shutdown(ctx)
	os.Remove(s.path)
	return err
}

type listJSON[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
}

func pageParams(r *http.Request) (offset, limit int) {
	offset, _ = strconv.Atoi(r.URL.Query().Get("offset"))
	limit, _ = strconv.Atoi(r.URL.Query().Get("limit"))
	return max(offset, 0), max(limit, 0)
}

func (s *AdminServer) handleListUsers(w http.ResponseWriter, r *http.Request) {
	offset, limit := pageParams(r)
	users, total, err := s.Admin.ListUsers(r.Context(), core.UserFilter{Email: r.URL.Query().Get("email"), Offset: offset, Limit: limit})
	if err != nil {
		writeError(w, r, err)
		return
	}
	items := each(users, func(u *core.User) *UserJSON { return NewUserJSON(u, s.Prices) })
	writeData(w, http.StatusOK, listJSON[*UserJSON]{Items: items, Total: total})
}

func (s *AdminServer) handleShowUser(w http.ResponseWriter, r *http.Request) {
	u, err := s.Admin.FindUser(r.Context(), r.PathValue("user"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewUserJSON(u, s.Prices))
}

type setPlanRequest struct {
	Plan   core.PlanID `json:"plan"`
	Status string      `json:"status"`
}

func (s *AdminServer) handleSetPlan(w http.ResponseWriter, r *http.Request) {
	var req setPlanRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	u, err := s.Admin.SetPlan(r.Context(), r.PathValue("user"), req.Plan, req.Status)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewUserJSON(u, s.Prices))
}

type syncBillingRequest struct {
	User string `json:"user"` // id or email; "": every user with a customer
}

func (s *AdminServer) handleSyncBilling(w http.ResponseWriter, r *http.Request) {
	var req syncBillingRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	changes, err := s.Admin.SyncBilling(r.Context(), req.User)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(changes, NewBillingChangeJSON))
}

func (s *AdminServer) handleListMessages(w http.ResponseWriter, r *http.Request) {
	offset, limit := pageParams(r)
	q := r.URL.Query()
	f := core.MessageFilter{Offset: offset, Limit: limit, Status: core.MessageStatus(q.Get("status"))}
	if due, _ := strconv.ParseInt(q.Get("dueBefore"), 10, 64); due > 0 {
		f.DueBefore = fromMillis(due)
	}
	ms, total, err := s.Admin.ListMessages(r.Context(), q.Get("user"), f)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, listJSON[*MessageJSON]{Items: each(ms, NewAdminMessageJSON), Total: total})
}

func (s *AdminServer) handleShowMessage(w http.ResponseWriter, r *http.Request) {
	m, err := s.Admin.FindMessage(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewAdminMessageJSON(m))
}

func (s *AdminServer) handleMessageOutbox(w http.ResponseWriter, r *http.Request) {
	it, err := s.Admin.MessageOutbox(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewOutboxItemJSON(it))
}

func (s *AdminServer) handleMessageEvents(w http.ResponseWriter, r *http.Request) {
	es, err := s.Admin.MessageEvents(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, EventsJSON(es))
}

// handleBackup streams a consistent copy of the store.
func (s *AdminServer) handleBackup(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := s.Admin.Backup(r.Context(), w); err != nil {
		// Headers are gone once the copy started; the client sees a short
		// body and reports it.
		logger(r).Error("backup", "err", err)
		panic(http.ErrAbortHandler)
	}
}

package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// Where you are signed in (Settings → Security): the user's sessions, ending
// one or every other, and the email about a sign-in from a new device. The
// public server alone serves them: an operator acting for a user may not
// end the user's sessions.

// SessionJSON is a session as its owner's list shows it: the device its
// user agent names, the network it signed in from (never the address),
// when it signed in and was last seen (written at most every 5 minutes).
type SessionJSON struct {
	ID         string `json:"id"`
	Device     string `json:"device"`
	Browser    string `json:"browser,omitempty"`
	OS         string `json:"os,omitempty"`
	Network    string `json:"network,omitempty"`
	CreatedAt  int64  `json:"createdAt"`
	LastSeenAt int64  `json:"lastSeenAt"`
	Current    bool   `json:"current"`
}

// NewSessionJSON is x on the wire.
func NewSessionJSON(x core.SessionInfo) SessionJSON {
	return SessionJSON{ID: x.ID, Device: x.Device.String(), Browser: x.Device.Browser, OS: x.Device.OS,
		Network: x.Network, CreatedAt: millis(x.CreatedAt), LastSeenAt: millis(x.LastSeenAt), Current: x.Current}
}

// SessionsJSON is GET /api/me/sessions.
type SessionsJSON struct {
	Sessions []SessionJSON `json:"sessions"`
	// SignInAlerts tells whether a sign-in from a new device emails the
	// owner.
	SignInAlerts bool `json:"signInAlerts"`
}

// SignInAlertsJSON is PUT /api/me/sign-in-alerts and its reply.
type SignInAlertsJSON struct {
	SignInAlerts *bool `json:"signInAlerts"`
}

// RevokedSessionsJSON is the reply of POST /api/me/sessions/revoke-others.
type RevokedSessionsJSON struct {
	Revoked int `json:"revoked"`
}

func (s *Server) signIns() core.SignIns {
	if s.SignIns != nil {
		return s.SignIns
	}
	si, _ := s.Identities.(core.SignIns)
	return si
}

func (s *Server) signInRoutes(mux *http.ServeMux) {
	si := s.signIns()
	if si == nil {
		return
	}
	mux.HandleFunc("GET /api/me/sessions", s.authed(func(w http.ResponseWriter, r *http.Request) {
		ss, err := si.ListSessions(r.Context())
		if err != nil {
			writeError(w, r, err)
			return
		}
		on, err := si.SignInAlerts(r.Context())
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, SessionsJSON{Sessions: each(ss, NewSessionJSON), SignInAlerts: on})
	}))
	mux.HandleFunc("DELETE /api/me/sessions/{id}", s.authed(func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		current := core.IdentityFrom(r.Context()).SessionID == id
		if err := si.RevokeSession(r.Context(), id); err != nil {
			writeError(w, r, err)
			return
		}
		if current {
			s.clearRefreshCookie(w)
		}
		writeData(w, http.StatusOK, nil)
	}))
	mux.HandleFunc("POST /api/me/sessions/revoke-others", s.authed(func(w http.ResponseWriter, r *http.Request) {
		n, err := si.RevokeOtherSessions(r.Context())
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, RevokedSessionsJSON{Revoked: n})
	}))
	mux.HandleFunc("PUT /api/me/sign-in-alerts", s.authed(func(w http.ResponseWriter, r *http.Request) {
		var req SignInAlertsJSON
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		if req.SignInAlerts == nil {
			writeError(w, r, core.ValidationError(map[string]string{"signInAlerts": "Please choose true or false"}))
			return
		}
		on, err := si.SetSignInAlerts(r.Context(), *req.SignInAlerts)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, SignInAlertsJSON{SignInAlerts: &on})
	}))
}

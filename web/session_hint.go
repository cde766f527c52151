package web

import (
	"net/http"
	"time"
)

// The session hint is a readable cookie that lives exactly as long as the
// HttpOnly refresh cookie. It holds no secret ("1"): it only tells the SPA
// that there is a session to refresh, so an anonymous visitor's page load
// makes no POST /api/auth/token that would be refused with a 401
// (docs/identity.md).
const (
	sessionHintSecure = "__Host-sl_session"
	sessionHintPlain  = "sl_session"
)

// sessionHint is the hint cookie matching a refresh cookie of value until
// expires; an empty value deletes it.
func (s *Server) sessionHint(value string, expires time.Time) *http.Cookie {
	c := s.refreshCookie(value, expires)
	c.Name, c.Path, c.HttpOnly = sessionHintPlain, "/", false
	if s.secure() {
		c.Name = sessionHintSecure
	}
	if value != "" {
		c.Value = "1"
	}
	return c
}

// setRefreshCookie sets (or, with an empty value, deletes) the refresh
// cookie and its session hint together.
func (s *Server) setRefreshCookie(w http.ResponseWriter, value string, expires time.Time) {
	http.SetCookie(w, s.refreshCookie(value, expires))
	http.SetCookie(w, s.sessionHint(value, expires))
}

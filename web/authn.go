package web

import (
	"net/http"
	"strings"

	"github.com/sendlater/sendlater/core"
)

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) string {
	h := headerValue(r.Header, "Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// authed wraps a handler that needs a signed-in identity: it checks the
// bearer token (an ID token or a personal access token) and puts the
// identity in the request's context (core.IdentityFrom). Anything else
// answers auth/invalid-user-token.
func (s *Server) authed(h http.HandlerFunc) http.HandlerFunc {
	return s.authedBy(bearerToken, h)
}

// authedBy is authed with the token taken from the request by tokenOf.
func (s *Server) authedBy(tokenOf func(*http.Request) string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token := tokenOf(r)
		if token == "" {
			writeError(w, r, core.Errorf(core.EInvalidToken, "Please sign in."))
			return
		}
		id, err := s.Identities.Authenticate(r.Context(), token)
		if err != nil {
			writeError(w, r, err)
			return
		}
		h(w, withIdentity(r, id))
	}
}

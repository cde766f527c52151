package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// Payments (Stripe) and social sign-in are switched off until they are
// configured, which is their own piece of work. Their endpoints exist so
// that clients get a clear answer instead of a 404.

// handleProviders lists the configured social sign-in providers: none.
func (s *Server) handleProviders(w http.ResponseWriter, r *http.Request) {
	writeData(w, http.StatusOK, []struct{}{})
}

func (s *Server) handleProviderNotConfigured(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, core.Errorf(core.EProviderNotConfigured, "Sign-in with %s is not set up on this server.", r.PathValue("provider")))
}

func (s *Server) handleBillingNotConfigured(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, core.Errorf(core.EBillingNotConfigured, "Payments are not set up on this server yet."))
}

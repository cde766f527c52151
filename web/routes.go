package web

import "net/http"

// routes registers every route of the public server in one place.
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /api/plans", s.handlePlans)

	mux.HandleFunc("/api/", handleAPINotFound)
	mux.Handle("/", s.spaHandler())
}

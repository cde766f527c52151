package web

import (
	"context"
	"net/http"
	"time"
)

type healthReport struct {
	Status string `json:"status"`
	Store  string `json:"store"`
}

// handleHealth answers 200 when the process is up and the store answers.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	rep := healthReport{Status: "ok", Store: "ok"}
	status := http.StatusOK
	if s.Health != nil {
		if err := s.Health(ctx); err != nil {
			logger(r).Error("health check", "err", err)
			rep = healthReport{Status: "unavailable", Store: "unavailable"}
			status = http.StatusServiceUnavailable
		}
	}
	writeJSON(w, status, rep)
}

package web

import (
	"context"
	"net/http"
	"time"
)

type healthReport struct {
	Status string `json:"status"`
	Store  string `json:"store"`
	// Scheduler is "ok", "stalled" (no pass finished for
	// core.StalledAfter: status degraded) or "off" (serve --no-scheduler).
	Scheduler string `json:"scheduler"`
	// LastPass is when the last delivery pass finished (ms since the epoch).
	LastPass int64 `json:"lastPass,omitempty"`
}

// handleHealth answers 200 when the process is up and the store answers,
// with status "degraded" while the in-process scheduler is stalled.
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
	rep.Scheduler = "off"
	if s.Scheduler != nil {
		stalled, last := s.Scheduler.Stalled(s.Clock.Now())
		rep.Scheduler, rep.LastPass = "ok", millis(last)
		if stalled {
			rep.Scheduler = "stalled"
			if status == http.StatusOK {
				rep.Status = "degraded"
			}
		}
	}
	writeJSON(w, status, rep)
}

package web

import (
	"context"
	"net/http"
	"time"

	"github.com/sendlater/sendlater/core"
)

type healthReport struct {
	Status string `json:"status"`
	Store  string `json:"store"`
	// Scheduler is the delivery's state (core.DeliveryHealth): "ok",
	// "stalled" (no pass finished for core.StalledAfter: status degraded)
	// or "off" (no scheduler runs: serve --no-scheduler, cron instead).
	// With a shared store it is the cluster's.
	Scheduler string `json:"scheduler"`
	// LastPass is when the last delivery pass finished (ms since the epoch).
	LastPass int64 `json:"lastPass,omitempty"`
	// Outbox counts the work that follows events (webhooks, the authors'
	// failure notices, identity emails): waiting, and failed for good (a
	// monitor should alert on those: nobody was told).
	Outbox *outboxReport `json:"outbox,omitempty"`
}

type outboxReport struct {
	Pending int `json:"pending"`
	Failed  int `json:"failed"`
}

// handleHealth answers 200 when the process is up and the store answers,
// with status "degraded" while the delivery is stalled.
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
	rep.Scheduler = core.HealthOff
	if s.Scheduler != nil && status == http.StatusOK {
		h, err := s.Scheduler.DeliveryHealth(ctx)
		if err != nil {
			logger(r).Error("health check: delivery", "err", err)
			rep = healthReport{Status: "unavailable", Store: "unavailable", Scheduler: core.HealthOff}
			status = http.StatusServiceUnavailable
		} else {
			rep.Scheduler, rep.LastPass = h.State, millis(h.LastPass)
			if h.State == core.HealthStalled {
				rep.Status = "degraded"
			}
		}
	}
	if s.Outbox != nil && status == http.StatusOK {
		pending, failed, err := s.Outbox.CountOutbox(ctx)
		if err != nil {
			logger(r).Error("health check: outbox", "err", err)
		} else {
			rep.Outbox = &outboxReport{Pending: pending, Failed: failed}
		}
	}
	writeJSON(w, status, rep)
}

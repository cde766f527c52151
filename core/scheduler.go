package core

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultSchedulerInterval is the server's delivery tick.
const DefaultSchedulerInterval = 5 * time.Second

// StalledAfter is how long the in-process scheduler may go without finishing
// a pass before the health check reports it degraded.
const StalledAfter = 5 * time.Minute

// Scheduler runs the delivery pass in the server: at start, then every
// Interval after the previous pass ended.
type Scheduler struct {
	Delivery *Delivery
	Interval time.Duration
	// Heartbeat, when set, runs after each pass that no error stopped, so an
	// outside monitor notices a dead scheduler.
	Heartbeat func(ctx context.Context) error
	Logger    *slog.Logger

	mu       sync.Mutex
	started  time.Time
	finished time.Time // of the last pass no error stopped
}

var _ SchedulerHealth = (*Scheduler)(nil)

// Run passes until ctx ends; the pass in flight then stops between sends.
func (s *Scheduler) Run(ctx context.Context) {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultSchedulerInterval
	}
	s.mu.Lock()
	s.started = s.Delivery.Clock.Now()
	s.mu.Unlock()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		res, err := s.Delivery.Run(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("delivery pass stopped", "err", err)
		case err == nil:
			s.mu.Lock()
			s.finished = res.Finished
			s.mu.Unlock()
			if res.Delivered+res.Reminded+res.Retried+res.Failed+res.Webhooks > 0 {
				log.Info("delivery pass", "delivered", res.Delivered, "reminded", res.Reminded,
					"retried", res.Retried, "failed", res.Failed, "webhooks", res.Webhooks,
					"took", res.Finished.Sub(res.Started))
			}
			if s.Heartbeat != nil && ctx.Err() == nil {
				if err := s.Heartbeat(ctx); err != nil {
					log.Warn("scheduler heartbeat", "err", err)
				}
			}
		}
		timer.Reset(interval)
	}
}

// Stalled reports whether no pass has finished for StalledAfter at now, and
// when the last one did (zero: none yet).
func (s *Scheduler) Stalled(now time.Time) (bool, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	since := s.finished
	if since.IsZero() {
		since = s.started
	}
	return !since.IsZero() && now.Sub(since) > StalledAfter, s.finished
}

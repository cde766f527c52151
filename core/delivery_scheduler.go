package core

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultSchedulerInterval is the server's delivery tick.
const DefaultSchedulerInterval = 5 * time.Second

// StalledAfter is how long the schedulers may go without finishing a pass
// before the health check reports the delivery degraded (HealthOf).
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

	wakeOnce sync.Once
	wake     chan struct{}
}

func (s *Scheduler) wakes() chan struct{} {
	s.wakeOnce.Do(func() { s.wake = make(chan struct{}, 1) })
	return s.wake
}

// wakeSettle is how long a woken scheduler waits before its pass: the
// wakes of a burst (a hundred sign-ups) make one pass, and the request that
// woke it has answered before the pass works on what it queued.
const wakeSettle = 100 * time.Millisecond

// Wake asks for a pass within wakeSettle rather than at the next tick (the
// Outbox calls it after queueing an email); wakes during a pass make one
// more pass.
func (s *Scheduler) Wake() {
	select {
	case s.wakes() <- struct{}{}:
	default:
	}
}

// Run passes until ctx ends, at start, then every Interval after the
// previous pass ended or wakeSettle after a wake; the pass in flight then
// stops between sends.
func (s *Scheduler) Run(ctx context.Context) {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultSchedulerInterval
	}
	if mon := s.Delivery.Monitor; mon != nil {
		mon.SchedulerStarted(ctx)
		defer mon.SchedulerStopped(ctx)
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	woken := false // the timer is set for a wake: later wakes do not push it back
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wakes():
			if !woken {
				woken = true
				timer.Reset(wakeSettle)
			}
			continue
		case <-timer.C:
			woken = false
		}
		res, err := s.Delivery.Run(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("delivery pass stopped", "err", err)
		case err == nil:
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

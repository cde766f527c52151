package core

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// The delivery health of every process that passes: each records its last
// pass in the store, so /healthz on any replica and `sendlater status` see
// the cluster's delivery, not one process's. (The bbolt store, held by one
// process, keeps the records in that process's memory.)

// ProcessHealth is one process's record.
type ProcessHealth struct {
	// Process names the process: a server by host and pid, a command run
	// (send-due from cron) by host and command, so its runs share a record.
	Process string
	// Scheduler tells that the process passes on a timer (serve), so a
	// pass is expected from it.
	Scheduler bool
	StartedAt time.Time
	// SeenAt is when it last reported.
	SeenAt time.Time
	// LastPass is its last pass, whatever its outcome; LastOK when its last
	// pass that no error stopped finished (zero: none yet).
	LastPass PassResult
	LastOK   time.Time
}

// HealthStore keeps the processes' records.
type HealthStore interface {
	// PutProcessHealth inserts h or replaces the record of h.Process.
	PutProcessHealth(ctx context.Context, h *ProcessHealth) error
	// DeleteProcessHealth deletes the record of process, if any.
	DeleteProcessHealth(ctx context.Context, process string) error
	// ProcessHealths lists every record, ordered by process.
	ProcessHealths(ctx context.Context) ([]*ProcessHealth, error)
}

// States of DeliveryHealth.
const (
	HealthOK      = "ok"      // a pass finished within StalledAfter
	HealthStalled = "stalled" // schedulers run, but no pass finished for StalledAfter
	HealthOff     = "off"     // no process runs a scheduler
)

// DeliveryHealth is the delivery's state over every process's record.
type DeliveryHealth struct {
	State string
	// LastPass is when the last pass of any process that no error stopped
	// finished; zero: none has.
	LastPass  time.Time
	Processes []*ProcessHealth
}

// forgetAfter is how long the record of a process that stopped reporting
// (killed, or a cron run not repeated) is kept: a day in which `sendlater
// status` shows it, and in which a cluster whose schedulers all died reads
// stalled.
const forgetAfter = 24 * time.Hour

// recordTimeout bounds a write of a record, which may happen after the
// process was told to stop.
const recordTimeout = 5 * time.Second

// HealthOf is the delivery's state at now: stalled when a scheduler runs (or
// ran within forgetAfter) and no pass of any process finished for
// StalledAfter, counted from the latest scheduler's start while none has.
func HealthOf(recs []*ProcessHealth, now time.Time) DeliveryHealth {
	h := DeliveryHealth{State: HealthOff, Processes: recs}
	var started time.Time
	schedulers := false
	for _, r := range recs {
		if r.LastOK.After(h.LastPass) {
			h.LastPass = r.LastOK
		}
		if r.Scheduler {
			schedulers = true
			if r.StartedAt.After(started) {
				started = r.StartedAt
			}
		}
	}
	if !schedulers {
		return h
	}
	since := h.LastPass
	if since.IsZero() {
		since = started
	}
	h.State = HealthOK
	if now.Sub(since) > StalledAfter {
		h.State = HealthStalled
	}
	return h
}

// PassMonitor records this process's passes in Store and reads back every
// process's. Delivery reports each pass to it, Scheduler its start and
// stop. A failure to record is logged, never stops a pass. Safe for
// concurrent use.
type PassMonitor struct {
	Store   HealthStore
	Clock   Clock
	Process string // this process's name (ProcessHealth.Process)
	Logger  *slog.Logger

	mu   sync.Mutex
	self ProcessHealth
}

var _ SchedulerHealth = (*PassMonitor)(nil)

// SchedulerStarted records that this process passes on a timer from now on,
// and forgets the records of processes silent for forgetAfter.
func (m *PassMonitor) SchedulerStarted(ctx context.Context) {
	now := m.Clock.Now()
	m.mu.Lock()
	m.self = ProcessHealth{Process: m.Process, Scheduler: true, StartedAt: now, SeenAt: now}
	h := m.self
	m.mu.Unlock()
	m.put(ctx, &h)
	recs, err := m.Store.ProcessHealths(ctx)
	if err != nil {
		m.logger().Warn("delivery health: list", "err", err)
		return
	}
	for _, r := range recs {
		if now.Sub(r.SeenAt) > forgetAfter {
			if err := m.Store.DeleteProcessHealth(ctx, r.Process); err != nil {
				m.logger().Warn("delivery health: forget", "process", r.Process, "err", err)
			}
		}
	}
}

// SchedulerStopped deletes this process's record: it no longer passes.
func (m *PassMonitor) SchedulerStopped(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := m.Store.DeleteProcessHealth(ctx, m.Process); err != nil {
		m.logger().Warn("delivery health: delete", "err", err)
	}
}

// passed records a pass of this process.
func (m *PassMonitor) passed(ctx context.Context, res PassResult) {
	m.mu.Lock()
	if m.self.StartedAt.IsZero() {
		m.self = ProcessHealth{Process: m.Process, StartedAt: res.Started}
	}
	m.self.SeenAt, m.self.LastPass = res.Finished, res
	if res.Error == "" {
		m.self.LastOK = res.Finished
	}
	h := m.self
	m.mu.Unlock()
	m.put(ctx, &h)
}

// put writes h, also when ctx ended (the last pass of a stopping process).
func (m *PassMonitor) put(ctx context.Context, h *ProcessHealth) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := m.Store.PutProcessHealth(ctx, h); err != nil {
		m.logger().Warn("delivery health: record", "err", err)
	}
}

// DeliveryHealth is the delivery's state over every process's record.
func (m *PassMonitor) DeliveryHealth(ctx context.Context) (DeliveryHealth, error) {
	recs, err := m.Store.ProcessHealths(ctx)
	if err != nil {
		return DeliveryHealth{}, err
	}
	return HealthOf(recs, m.Clock.Now()), nil
}

func (m *PassMonitor) logger() *slog.Logger {
	if m.Logger == nil {
		return slog.Default()
	}
	return m.Logger
}

// CheckNew is the rule of a record a store puts: it is kept under its
// process's name.
func (h *ProcessHealth) CheckNew() error {
	if h.Process == "" {
		return Errorf(EInvalid, "A health record needs a process name.")
	}
	return nil
}

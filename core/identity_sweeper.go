package core

import (
	"context"
	"log/slog"
	"time"
)

// Sweeper removes what has expired: sessions, email action codes and the
// events the limits counted. Nothing depends on it for correctness (expired
// things are refused or not counted when read); it keeps the store from
// growing with them. The server runs it every hour.
type Sweeper struct {
	Sessions    SessionStore
	ActionCodes ActionCodeStore
	DeviceCodes DeviceCodeStore // nil: none to sweep
	Limits      *Limiter
	Clock       Clock
	Logger      *slog.Logger
}

// Swept counts what one sweep removed.
type Swept struct {
	Sessions, ActionCodes, DeviceCodes, LimitEvents int
}

// Sweep deletes every session, action code and limit event that expired
// before now.
func (s *Sweeper) Sweep(ctx context.Context) (Swept, error) {
	var n Swept
	var err error
	now := s.Clock.Now()
	if n.Sessions, err = s.Sessions.DeleteExpiredSessions(ctx, now); err != nil {
		return n, err
	}
	if n.ActionCodes, err = s.ActionCodes.DeleteExpiredActionCodes(ctx, now); err != nil {
		return n, err
	}
	if s.DeviceCodes != nil {
		if n.DeviceCodes, err = s.DeviceCodes.DeleteExpiredDeviceCodes(ctx, now); err != nil {
			return n, err
		}
	}
	n.LimitEvents, err = s.Limits.Sweep(ctx)
	return n, err
}

// Run sweeps every interval until ctx ends.
func (s *Sweeper) Run(ctx context.Context, every time.Duration) {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		n, err := s.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("sweeping what expired", "err", err)
		case n != Swept{}:
			log.Info("swept expired", "sessions", n.Sessions, "action_codes", n.ActionCodes, "device_codes", n.DeviceCodes, "limit_events", n.LimitEvents)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

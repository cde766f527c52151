package core

import (
	"context"
	"log/slog"
	"time"
)

// Sweeper removes what has expired: sessions and email action codes. Nothing
// depends on it for correctness (expired things are refused when used); it
// keeps the store from growing with them. The server runs it every hour.
type Sweeper struct {
	Sessions    SessionStore
	ActionCodes ActionCodeStore
	Clock       Clock
	Logger      *slog.Logger
}

// Sweep deletes every session and action code that expired before now.
func (s *Sweeper) Sweep(ctx context.Context) (sessions, codes int, err error) {
	now := s.Clock.Now()
	if sessions, err = s.Sessions.DeleteExpiredSessions(ctx, now); err != nil {
		return sessions, 0, err
	}
	codes, err = s.ActionCodes.DeleteExpiredActionCodes(ctx, now)
	return sessions, codes, err
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
		sessions, codes, err := s.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("sweeping expired sessions and action codes", "err", err)
		case sessions+codes > 0:
			log.Info("swept expired", "sessions", sessions, "action_codes", codes)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

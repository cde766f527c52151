package bolt

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/sendlater/sendlater/core"
)

// The delivery health records (core.HealthStore) live in memory: bbolt
// locks its file for one process, so the only process whose passes count
// is the one holding the store, and a record outliving it would describe
// nothing that runs.
type healthRecords struct {
	mu   sync.Mutex
	recs map[string]core.ProcessHealth
}

var _ core.HealthStore = (*DB)(nil)

func (s *DB) PutProcessHealth(ctx context.Context, h *core.ProcessHealth) error {
	if err := h.CheckNew(); err != nil {
		return err
	}
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	if s.health.recs == nil {
		s.health.recs = map[string]core.ProcessHealth{}
	}
	r := *h
	r.LastPass.Errors = slices.Clone(h.LastPass.Errors)
	s.health.recs[h.Process] = r
	return nil
}

func (s *DB) DeleteProcessHealth(ctx context.Context, process string) error {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	delete(s.health.recs, process)
	return nil
}

func (s *DB) ProcessHealths(ctx context.Context) ([]*core.ProcessHealth, error) {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	out := make([]*core.ProcessHealth, 0, len(s.health.recs))
	for _, r := range s.health.recs {
		r.LastPass.Errors = slices.Clone(r.LastPass.Errors)
		out = append(out, &r)
	}
	slices.SortFunc(out, func(a, b *core.ProcessHealth) int { return strings.Compare(a.Process, b.Process) })
	return out, nil
}

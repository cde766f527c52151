package core

import (
	"sync"
	"time"
)

// PassLog keeps the last passes in memory. Safe for concurrent use.
type PassLog struct {
	mu     sync.Mutex
	max    int
	passes []PassResult
}

// NewPassLog keeps the last n passes.
func NewPassLog(n int) *PassLog { return &PassLog{max: n} }

func (l *PassLog) add(r PassResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.passes) == l.max {
		l.passes = append(l.passes[:0], l.passes[1:]...)
	}
	l.passes = append(l.passes, r)
}

// Last returns the passes kept, oldest first.
func (l *PassLog) Last() []PassResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]PassResult(nil), l.passes...)
}

// LastFinished is when the last pass that was not stopped by an error
// finished; zero when none has.
func (l *PassLog) LastFinished() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.passes) - 1; i >= 0; i-- {
		if l.passes[i].Error == "" {
			return l.passes[i].Finished
		}
	}
	return time.Time{}
}

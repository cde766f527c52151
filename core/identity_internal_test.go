package core

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestHashLimiterBoundsConcurrency(t *testing.T) {
	l := make(hashLimiter, 2)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			err := l.do(context.Background(), 0, func() {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(5 * time.Millisecond)
				running.Add(-1)
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d hashes ran at once, at most 2", p)
	}
}

func TestHashLimiterWaitEndsWithContext(t *testing.T) {
	l := make(hashLimiter, 1)
	l <- struct{}{} // the one slot is taken
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ran := false
	err := l.do(ctx, 0, func() { ran = true })
	if ErrorCode(err) != EUnavailable || ran {
		t.Fatalf("err %v, ran %v: want %s without running", err, ran, EUnavailable)
	}
}

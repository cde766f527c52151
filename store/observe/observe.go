// Package observe times the stores' transactions for the metrics (issue 34):
// both backends time theirs the same way, with an Observer each.
package observe

import (
	"sync/atomic"
	"time"
)

// Observer tells the time of each transaction to the function
// ObserveTransactions set; none set: Start costs one atomic load.
type Observer struct {
	fn atomic.Pointer[func(op string, took time.Duration)]
}

// Set makes fn the observer.
func (o *Observer) Set(fn func(op string, took time.Duration)) { o.fn.Store(&fn) }

// Start times a transaction of op: the returned function ends it.
func (o *Observer) Start(op string) func() {
	fn := o.fn.Load()
	if fn == nil {
		return func() {}
	}
	start := time.Now()
	return func() { (*fn)(op, time.Since(start)) }
}

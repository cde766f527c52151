package bolt

import (
	"sync/atomic"
	"time"
)

// txObserver tells the time of each transaction to the function
// ObserveTransactions set; none set: Start costs one atomic load.
type txObserver struct {
	fn atomic.Pointer[func(op string, took time.Duration)]
}

// Set makes fn the observer.
func (o *txObserver) Set(fn func(op string, took time.Duration)) { o.fn.Store(&fn) }

// Start times a transaction of op: the returned function ends it.
func (o *txObserver) Start(op string) func() {
	fn := o.fn.Load()
	if fn == nil {
		return func() {}
	}
	start := time.Now()
	return func() { (*fn)(op, time.Since(start)) }
}

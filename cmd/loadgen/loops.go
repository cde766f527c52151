package main

// The scenarios' loops, closed (as fast as the connections go) and open (a
// fixed rate), and what they measure.

import (
	"slices"
	"strconv"
	"sync"
	"time"
)

// result is one scenario's outcome.
type result struct {
	n, errors  int
	elapsed    time.Duration
	latencies  []time.Duration // sorted
	firstError string
}

func (r *result) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(float64(len(r.latencies))*p/100+0.5) - 1
	return r.latencies[max(0, min(i, len(r.latencies)-1))]
}

// collector gathers the workers' samples.
type collector struct {
	mu        sync.Mutex
	res       result
	latencies [][]time.Duration
}

func (c *collector) add(w *worker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.latencies = append(c.latencies, w.lat)
	c.res.errors += w.errs
	if c.res.firstError == "" {
		c.res.firstError = w.firstErr
	}
}

// worker is one connection's share of a scenario: its latencies and errors.
type worker struct {
	lat      []time.Duration
	errs     int
	firstErr string
}

// send sends req on c and records its latency from since and its outcome.
func (w *worker) send(c *conn, req []byte, since time.Time) {
	status, err := c.do(req)
	w.lat = append(w.lat, time.Since(since))
	if err != nil || status >= 300 {
		w.errs++
		if w.firstErr == "" {
			w.firstErr = describeFailure(status, err)
		}
	}
}

func (c *collector) result(elapsed time.Duration) result {
	r := c.res
	for _, l := range c.latencies {
		r.latencies = append(r.latencies, l...)
	}
	slices.Sort(r.latencies)
	r.n, r.elapsed = len(r.latencies), elapsed
	return r
}

func describeFailure(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return "HTTP " + strconv.Itoa(status)
}

// crew is the workers of one loop, each on its own connection.
type crew struct {
	col collector
	wg  sync.WaitGroup
}

// start starts n workers running work, each connected to the next of addrs
// in turn (replicas behind a balancer that spreads connections).
func (cr *crew) start(addrs []string, n int, work func(c *conn, w *worker)) {
	for i := range n {
		cr.wg.Add(1)
		go func() {
			defer cr.wg.Done()
			c := &conn{addr: addrs[i%len(addrs)]}
			defer c.close()
			w := &worker{lat: make([]time.Duration, 0, 4096)}
			work(c, w)
			cr.col.add(w)
		}()
	}
}

// result waits for the workers and returns what they measured since start.
func (cr *crew) result(start time.Time) result {
	cr.wg.Wait()
	return cr.col.result(time.Since(start))
}

// closedLoop runs conns workers sending req back to back for d.
func closedLoop(addrs []string, conns int, d time.Duration, req []byte) result {
	var cr crew
	start := time.Now()
	end := start.Add(d)
	cr.start(addrs, conns, func(c *conn, w *worker) {
		for t0 := time.Now(); t0.Before(end); t0 = time.Now() {
			w.send(c, req, t0)
		}
	})
	return cr.result(start)
}

// openLoop sends rate requests per second on a fixed schedule for d, over at
// most conns connections at once; latency counts from the scheduled time.
func openLoop(addrs []string, conns int, rate float64, d time.Duration, req []byte) result {
	var cr crew
	jobs := make(chan time.Time, conns*4)
	cr.start(addrs, conns, func(c *conn, w *worker) {
		for at := range jobs {
			if wait := time.Until(at); wait > 0 {
				time.Sleep(wait)
			}
			w.send(c, req, at)
		}
	})
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for at := start; at.Before(start.Add(d)); at = at.Add(interval) {
		jobs <- at
	}
	close(jobs)
	return cr.result(start)
}

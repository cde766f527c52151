package main

// The server's memory and CPU time, read from /proc while the load runs.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The figures of the server processes, summed over the replicas; 0 if
// unknown.

// rss is the resident memory in bytes (VmRSS).
func rss(pids []int) int64 {
	return sum(pids, func(pid int) int64 { return procStatus(pid, "VmRSS:") })
}

// rssAnon is the part of rss that is the processes' own memory (heap,
// stacks): RssAnon. The rest is mostly the store's file, which bbolt maps
// and the kernel can reclaim at any time.
func rssAnon(pids []int) int64 {
	return sum(pids, func(pid int) int64 { return procStatus(pid, "RssAnon:") })
}

// cpuTime is the CPU time used (user and system). Unlike latency and
// throughput it does not count the time other processes of a shared
// machine take the CPU away: the cost per request compares runs on a noisy
// machine.
func cpuTime(pids []int) time.Duration {
	return time.Duration(sum(pids, func(pid int) int64 { return int64(cpuTimeOf(pid)) }))
}

func sum(pids []int, f func(pid int) int64) int64 {
	var n int64
	for _, pid := range pids {
		n += f(pid)
	}
	return n
}

func cpuTimeOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count from after it.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const userHZ = 100 // clock ticks per second of /proc on Linux
	return time.Duration(utime+stime) * time.Second / userHZ
}

// procStatus reads one kB figure of /proc/<pid>/status in bytes, 0 if unknown.
func procStatus(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// rssWatch samples the processes' resident memory and keeps the peak.
type rssWatch struct {
	peak, peakAnon atomic.Int64
	done           chan struct{}
	wg             sync.WaitGroup
}

// watchRSS samples every 50 ms, for a whole scenario.
func watchRSS(pids []int) *rssWatch { return watchRSSEvery(pids, 50*time.Millisecond) }

// watchRSSEvery samples the processes' memory every interval until stop.
func watchRSSEvery(pids []int, interval time.Duration) *rssWatch {
	w := &rssWatch{done: make(chan struct{})}
	if len(pids) == 0 {
		return w
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if v := rss(pids); v > w.peak.Load() {
				w.peak.Store(v)
			}
			if v := rssAnon(pids); v > w.peakAnon.Load() {
				w.peakAnon.Store(v)
			}
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *rssWatch) reset() {
	w.peak.Store(0)
	w.peakAnon.Store(0)
}

// stop ends the watch and returns the peaks of RSS and of its anonymous part.
func (w *rssWatch) stop() (peak, anon int64) {
	close(w.done)
	w.wg.Wait()
	return w.peak.Load(), w.peakAnon.Load()
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func fmtMiB(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", mib(b))
}

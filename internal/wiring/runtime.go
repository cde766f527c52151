package wiring

import (
	"os"
	"runtime/debug"
)

// MemoryLimit is a serving process's soft memory limit unless GOMEMLIMIT
// is set: argon2id takes 19 MiB a sign-in, and the limit has the collector
// hand that back promptly after a burst.
const MemoryLimit = 80 << 20

// GCPercent is a serving process's GOGC unless GOGC is set: the heap may
// grow to five times what is live before the collector runs, a fifth as
// often as Go's default 100. A busy server's live heap is a few MiB, so
// its heap stays well under MemoryLimit, which still bounds it (the
// collector runs earlier as the heap nears the limit): fewer cycles cut
// the CPU a quick read spends on marking and assists (issue 35,
// docs/benchmarks-history.md, "Issue 35: `/api/me` on PostgreSQL against bbolt").
const GCPercent = 400

// ServerRuntime sets the Go runtime as `serve` runs: MemoryLimit and
// GCPercent, each unless its environment variable is set. Benchmarks of
// the server's work call it too, so that they measure what it runs; the
// function returned puts back what was set before.
func ServerRuntime() (restore func()) {
	limit, percent := int64(-1), -1
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(MemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		percent = debug.SetGCPercent(GCPercent)
	}
	return func() {
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
		if percent >= 0 {
			debug.SetGCPercent(percent)
		}
	}
}

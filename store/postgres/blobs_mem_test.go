package postgres_test

import (
	"testing"

	"github.com/sendlater/sendlater/blob/blobtest"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// A 25 MB file sealed, put and read back whole keeps the heap within
// 16 MiB of where it was (issue 33: +16 MiB of RSS at most); the numbers
// are in docs/benchmarks-history.md#attachments-inside-the-store-a-25-mb-files-memory-and-other-writers-wait-issue-33.
func TestBlobPut25MBKeepsHeapSmall(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	m := blobtest.MeasureMemory(t, db.Blobs(), 25<<20)
	t.Log("postgres: " + m.String())
	if m.HeapGrowth() > 16<<20 || m.AnonGrowth() > 16<<20 {
		t.Fatalf("a 25 MB put and read grew the heap by %d bytes, the anonymous RSS by %d", m.HeapGrowth(), m.AnonGrowth())
	}
}

// go test ./store/postgres -run '^$' -bench BenchmarkBlob25MB -benchtime=1x -count=5
func BenchmarkBlob25MB(b *testing.B) {
	db := mustOpen(b, pgtest.URL(b))
	blobtest.Bench25MB(b, db.Blobs(), func() error { return db.CountPageView(ctx, "2026-11-28", "/faq") })
}

package bolt_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sendlater/sendlater/blob/blobtest"
)

// A 25 MB file sealed, put and read back whole keeps the heap and the
// anonymous resident set within 16 MiB of where they were (issue 33: +16
// MiB of RSS at most); the numbers are in docs/benchmarks-history.md#attachments-inside-the-store-a-25-mb-files-memory-and-other-writers-wait-issue-33.
// The rest of the resident set is bbolt's mapped pages: a read gives back
// those of the chunks it copied (releaseMapped), else they grew by the
// file's size (+16 to +24 MiB more than the anonymous part; +5 to +8
// with it), which the bound of 12 MiB catches.
func TestBlobPut25MBKeepsHeapSmall(t *testing.T) {
	db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
	m := blobtest.MeasureMemory(t, db.Blobs(), 25<<20)
	t.Log("bbolt: " + m.String())
	if m.HeapGrowth() > 16<<20 || m.AnonGrowth() > 16<<20 || (runtime.GOOS == "linux" && m.RSSGrowth()-m.AnonGrowth() > 12<<20) {
		t.Fatalf("a 25 MB put and read grew the heap by %d bytes, the anonymous RSS by %d, the RSS by %d",
			m.HeapGrowth(), m.AnonGrowth(), m.RSSGrowth())
	}
}

// go test ./store/bolt -run '^$' -bench BenchmarkBlob25MB -benchtime=1x -count=5
func BenchmarkBlob25MB(b *testing.B) {
	db := MustOpen(b, filepath.Join(b.TempDir(), "sendlater.db"))
	blobtest.Bench25MB(b, db.Blobs(), func() error { return db.CountPageView(ctx, "2026-11-28", "/faq") })
}

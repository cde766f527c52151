package blobtest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Memory is what one sealed put and full read of a file cost the process.
type Memory struct {
	Size                         int64         // the file's plaintext bytes
	HeapBefore, HeapPeak         uint64        // runtime.MemStats.HeapInuse after a GC, and its highest sample during
	TotalAlloc                   uint64        // bytes allocated during (runtime.MemStats.TotalAlloc)
	RSSBefore, RSSPeak, RSSAfter uint64        // VmRSS samples from /proc/self/status (0 where unreadable)
	AnonBefore, AnonPeak         uint64        // RssAnon samples: the resident set less mapped files (bbolt's mmap)
	Put, Read                    time.Duration // how long each took
}

// HeapGrowth is the highest heap in use during, above the heap before.
func (m Memory) HeapGrowth() int64 { return int64(m.HeapPeak) - int64(m.HeapBefore) }

// RSSGrowth is the highest resident set during, above the one before.
func (m Memory) RSSGrowth() int64 { return int64(m.RSSPeak) - int64(m.RSSBefore) }

// AnonGrowth is RSSGrowth without mapped files' pages.
func (m Memory) AnonGrowth() int64 { return int64(m.AnonPeak) - int64(m.AnonBefore) }

// MeasureMemory seals size bytes made as they are read (never whole in
// memory) with core.SealAttachment, puts them into s, and reads the whole
// file back through core.OpenAttachmentRange, as a download would, while
// sampling the heap and the resident set.
func MeasureMemory(t testing.TB, s core.BlobStore, size int64) Memory {
	t.Helper()
	ctx := context.Background()
	key := bytes.Repeat([]byte{5}, 32)
	m := Memory{Size: size}
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.HeapBefore, m.HeapPeak = ms.HeapInuse, ms.HeapInuse
	m.RSSBefore, m.AnonBefore = rss()
	m.RSSPeak, m.AnonPeak = m.RSSBefore, m.AnonBefore
	alloc := ms.TotalAlloc
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.HeapPeak = max(m.HeapPeak, ms.HeapInuse)
			all, anon := rss()
			m.RSSPeak, m.AnonPeak = max(m.RSSPeak, all), max(m.AnonPeak, anon)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	plain := io.LimitReader(rand.NewChaCha8([32]byte{1}), size)
	sealed, err := core.SealAttachment(key, "memory", plain)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := s.PutBlob(ctx, "memory/f1", sealed)
	m.Put = time.Since(start)
	if err != nil || n != core.SealedAttachmentSize(size) {
		t.Fatalf("put %d bytes: %d %v", size, n, err)
	}
	start = time.Now()
	r, err := s.OpenBlob(ctx, "memory/f1")
	if err != nil {
		t.Fatal(err)
	}
	opened, err := core.OpenAttachmentRange(key, "memory", r, r.Size(), 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.Copy(io.Discard, opened)
	r.Close()
	m.Read = time.Since(start)
	if err != nil || got != size {
		t.Fatalf("read back %d of %d bytes: %v", got, size, err)
	}
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	m.TotalAlloc = ms.TotalAlloc - alloc
	m.RSSAfter, _ = rss()
	return m
}

// rss is the process's resident set and its anonymous part in bytes
// (Linux), or zeros.
func rss() (all, anon uint64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	kb := func(rest []byte) uint64 {
		n, _ := strconv.ParseUint(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
		return n << 10
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			all = kb(rest)
		} else if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("RssAnon:")); ok {
			anon = kb(rest)
		}
	}
	return all, anon
}

// String is m on one line, in MiB.
func (m Memory) String() string {
	mib := func(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }
	return "file " + mib(m.Size) + " MiB: heap in use " + mib(int64(m.HeapBefore)) + " -> peak " + mib(int64(m.HeapPeak)) +
		" (+" + mib(m.HeapGrowth()) + "), allocated " + mib(int64(m.TotalAlloc)) +
		"; RSS " + mib(int64(m.RSSBefore)) + " -> peak " + mib(int64(m.RSSPeak)) + " (+" + mib(m.RSSGrowth()) + "), after " + mib(int64(m.RSSAfter)) +
		"; anonymous RSS +" + mib(m.AnonGrowth()) +
		"; put " + m.Put.Round(time.Millisecond).String() + ", read " + m.Read.Round(time.Millisecond).String()
}

// OtherWrites puts a file of size bytes into s while write (another small
// write of the same store) runs again and again, and returns how long each
// of those writes took: what a put makes other writers wait.
func OtherWrites(t testing.TB, s core.BlobStore, key string, size int64, write func() error) []time.Duration {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan []time.Duration)
	go func() {
		var took []time.Duration
		for {
			select {
			case <-stop:
				done <- took
				return
			default:
			}
			start := time.Now()
			if err := write(); err != nil {
				t.Error(err)
				done <- took
				return
			}
			took = append(took, time.Since(start))
		}
	}()
	n, err := s.PutBlob(context.Background(), key, io.LimitReader(rand.NewChaCha8([32]byte{2}), size))
	close(stop)
	took := <-done
	if err != nil || n != size {
		t.Fatalf("put %d bytes: %d %v", size, n, err)
	}
	return took
}

// Quantile is the q-th quantile (0..1) of ds, in milliseconds (0 for none).
func Quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))]) / float64(time.Millisecond)
}

// Bench25MB is the benchmark of both stores' Blobs: each round puts a
// 25 MB sealed file and reads it back (MeasureMemory), then puts another
// while write runs again and again, after timing write alone as often; it
// reports the memory of the last round and the writes' quantiles.
func Bench25MB(b *testing.B, s core.BlobStore, write func() error) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		m := MeasureMemory(b, s, 25<<20)
		if err := s.DeleteBlob(ctx, "memory/f1"); err != nil {
			b.Fatal(err)
		}
		during := OtherWrites(b, s, "writers/f1", 25<<20, write)
		if err := s.DeleteBlob(ctx, "writers/f1"); err != nil {
			b.Fatal(err)
		}
		var alone []time.Duration
		for range max(len(during), 50) {
			start := time.Now()
			if err := write(); err != nil {
				b.Fatal(err)
			}
			alone = append(alone, time.Since(start))
		}
		b.ReportMetric(float64(m.HeapGrowth())/(1<<20), "heap-MiB")
		b.ReportMetric(float64(m.AnonGrowth())/(1<<20), "anon-rss-MiB")
		b.ReportMetric(float64(m.RSSGrowth())/(1<<20), "rss-MiB")
		b.ReportMetric(float64(m.TotalAlloc)/(1<<20), "alloc-MiB")
		b.ReportMetric(float64(m.Put)/float64(time.Millisecond), "put-ms")
		b.ReportMetric(float64(m.Read)/float64(time.Millisecond), "read-ms")
		b.ReportMetric(float64(len(during)), "writes-during")
		b.ReportMetric(Quantile(alone, 0.5), "write-alone-p50-ms")
		b.ReportMetric(Quantile(alone, 0.99), "write-alone-p99-ms")
		b.ReportMetric(Quantile(during, 0.5), "write-during-p50-ms")
		b.ReportMetric(Quantile(during, 0.99), "write-during-p99-ms")
		b.ReportMetric(Quantile(during, 1), "write-during-max-ms")
	}
}

package web_test

import (
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// The zip export of a 24 MB file is streamed: the heap in use while it is
// written and read stays within 16 MiB of where it was (the client reads
// it in this process too, into nothing). SENDLATER_EXPORT_MEM=1 logs the
// figures (docs/benchmarks-history.md, "The zip export's memory").
func TestExportZipKeepsHeapSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 24 MB")
	}
	const size = 24_000_000
	e := testenv.New(t, testenv.Config{Start: testenv.DefaultStart})
	a := scopedAPI(t, e)
	ann, annID := proSignedUp(t, e, "ann@example.com")
	var m web.MessageJSON
	a.ok(nil, http.StatusCreated, "POST", "/api/messages", ann,
		map[string]string{"title": "Papers", "name": "Bob", "recipient": "bob@example.com", "message": "See the files."}, &m)
	ctx := e.As(annID)
	f, err := e.Attachments.Create(ctx, m.ID, "recording.bin", size)
	if err != nil {
		t.Fatal(err)
	}
	src := rand.NewChaCha8([32]byte{9})
	for f.State != core.AttachmentComplete {
		if f, err = e.Attachments.Upload(ctx, m.ID, f.ID, f.Offset(), io.LimitReader(src, f.PartLen(len(f.Parts)))); err != nil {
			t.Fatal(err)
		}
	}

	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before, peak := ms.HeapInuse, ms.HeapInuse
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	start := time.Now()
	req, _ := http.NewRequest("GET", a.srv.URL()+"/api/me/export?format=zip", nil)
	req.Header.Set("Authorization", "Bearer "+ann)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil || resp.StatusCode != http.StatusOK || n < size {
		t.Fatalf("the export: %d, %d bytes, %v", resp.StatusCode, n, err)
	}
	growth := int64(peak) - int64(before)
	if os.Getenv("SENDLATER_EXPORT_MEM") == "1" {
		t.Logf("zip export of %d bytes: %d bytes in %v, heap in use %d → peak %d (+%.1f MiB)", size, n, took, before, peak, float64(growth)/(1<<20))
	}
	if growth > 16<<20 {
		t.Fatalf("the heap grew by %.1f MiB while a %d-byte file was exported", float64(growth)/(1<<20), size)
	}
}

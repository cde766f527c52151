package main

// attach-concurrent: 8 Pro authors upload 3 MB files at once, again and
// again, while another user reads their list of 20 closed-loop: the
// list's latency alone and beside the uploads, and the uploads' MB/s.

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

const (
	attachUploaders = 8
	attachFileSize  = 3_000_000
)

// attachConcurrent runs the list alone for d, then beside the uploads for
// d, and prints both.
func attachConcurrent(base string, srv *servers, addrs []string, pids []int, listToken string, conns int, warmup, d time.Duration) {
	clients := make([]*fileClient, attachUploaders)
	messages := make([]string, attachUploaders)
	for i := range clients {
		token, m, err := proAuthor(base, srv, fmt.Sprintf("uploader%d", i))
		if err != nil {
			fatalf("attach-concurrent setup: %v", err)
		}
		clients[i], messages[i] = newFileClient(base, token), m
	}
	files := make([][]byte, attachUploaders)
	for i := range files {
		files[i] = randomFile(attachFileSize)
	}
	list := request("GET", "/api/messages", listToken, nil)
	closedLoop(addrs, conns, warmup, list)
	alone := closedLoop(addrs, conns, d, list)

	var stored atomic.Int64 // bytes of uploads acknowledged complete
	var uploads, failures atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	mem := watchRSS(pids)
	cpu := cpuTime(pids)
	start := time.Now()
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				path, err := c.upload(messages[i], fmt.Sprintf("scan-%d.pdf", n), files[i])
				if err == nil {
					stored.Add(int64(len(files[i])))
					uploads.Add(1)
				} else {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				if path != "" {
					c.remove(path) // the account's bytes stay within its quota
				}
			}
		}()
	}
	beside := closedLoop(addrs, conns, d, list)
	close(stop)
	upElapsed := time.Since(start)
	wg.Wait()
	cpu = cpuTime(pids) - cpu
	peak, anon := mem.stop()

	fmt.Printf("\nattach-concurrent: another user's GET /api/messages (20), c=%d closed loop, alone then beside %d uploads of %d bytes at once (8 Pro authors, each upload then deleted)\n",
		conns, attachUploaders, attachFileSize)
	fmt.Printf("%-28s %9s %8s %10s %8s %8s %8s\n", "list", "requests", "errors", "req/s", "p50 ms", "p99 ms", "max ms")
	for _, r := range []struct {
		label string
		res   result
	}{{"alone", alone}, {"beside the uploads", beside}} {
		fmt.Printf("%-28s %9d %8d %10.0f %8.2f %8.2f %8.2f\n", r.label, r.res.n, r.res.errors,
			float64(r.res.n)/r.res.elapsed.Seconds(), ms(r.res.pct(50)), ms(r.res.pct(99)), ms(r.res.pct(100)))
		if r.res.firstError != "" {
			fmt.Printf("  first error: %s\n", r.res.firstError)
		}
	}
	verdict := "under"
	if ms(beside.pct(99)) >= 50 {
		verdict = "NOT under"
	}
	fmt.Printf("uploads: %d complete (%d failed) in %.1f s: %s (acknowledged bytes over the list's run); list p99 %s 50 ms\n",
		uploads.Load(), failures.Load(), upElapsed.Seconds(), mbps(stored.Load(), upElapsed), verdict)
	if e := firstErr.Load(); e != nil {
		fmt.Printf("  first upload error: %s\n", e)
	}
	fmt.Printf("server meanwhile: peak RSS %s (anonymous %s), CPU %.1f s\n", fmtMiB(peak), fmtMiB(anon), cpu.Seconds())
}

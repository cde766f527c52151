package main

// The sign-in burst: n sign-ins sent at once, each on its own connection,
// while the server's resident memory (VmRSS, read from /proc/<pid>/status)
// is sampled; then the server is left idle and watched until its memory is
// back at the baseline measured idle before the burst.

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// burstBaselineSlack is how close to the idle baseline "back" means.
const burstBaselineSlack = 4 << 20

// signinBurst runs the burst of n sign-ins and reports what it measured.
// idle is how long it watches the memory fall back afterwards.
func signinBurst(addrs []string, pids []int, email string, n int, idle time.Duration) {
	if len(pids) == 0 {
		fatalf("the signin-burst scenario reads the server's memory: give -bin, or -url with -pid")
	}
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	req := request("POST", "/api/auth/signin", "", body)
	time.Sleep(2 * time.Second) // let the setup's work settle
	base, baseAnon := rss(pids), rssAnon(pids)

	conns := make([]*conn, n)
	for i := range conns { // connect first, so the burst is the requests only
		conns[i] = &conn{addr: addrs[i%len(addrs)]}
		conns[i].do(request("GET", "/healthz", "", nil))
	}
	mem := watchRSSEvery(pids, 5*time.Millisecond) // a burst is short
	var cr crew
	start := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(n)
	for i := range n {
		cr.wg.Add(1)
		go func() {
			defer cr.wg.Done()
			c := conns[i]
			defer c.close()
			w := &worker{}
			ready.Done()
			<-start
			w.send(c, req, time.Now())
			cr.col.add(w)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	res := cr.result(t0)
	peak, peakAnon := mem.stop()

	back := time.Duration(-1)
	var after int64
	for s := time.Now(); time.Since(s) < idle; time.Sleep(250 * time.Millisecond) {
		after = rss(pids)
		if after <= base+burstBaselineSlack {
			back = time.Since(s)
			break
		}
	}
	fmt.Printf("\nsign-in burst: %d sign-ins at once, %d errors, all answered in %.2f s (p50 %.0f ms, max %.0f ms)\n",
		res.n, res.errors, res.elapsed.Seconds(), ms(res.pct(50)), ms(res.pct(100)))
	if res.firstError != "" {
		fmt.Printf("  first error: %s\n", res.firstError)
	}
	fmt.Printf("  VmRSS idle before %.1f MiB (anonymous %.1f), peak %.1f MiB (anonymous %.1f)\n",
		mib(base), mib(baseAnon), mib(peak), mib(peakAnon))
	if back >= 0 {
		fmt.Printf("  back within %.0f MiB of the baseline %.1f s after the burst: %.1f MiB\n", mib(burstBaselineSlack), back.Seconds(), mib(after))
	} else {
		fmt.Printf("  NOT back within %.0f MiB of the baseline after %s: %.1f MiB\n", mib(burstBaselineSlack), idle, mib(after))
	}
}

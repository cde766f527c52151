package metrics

import (
	"net/http"
	"net/http/pprof"
	"strings"
)

// Profiles serves Go's runtime profiles (net/http/pprof: the index, cpu as
// "profile", heap, allocs, goroutine, mutex, block, threadcreate, trace)
// to a scraper that proves a, for metrics.pprof. The command line is left
// out: it may carry what an operator typed.
func Profiles(a Auth) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.allows(r) {
			refuse(w, a)
			return
		}
		name, _ := strings.CutPrefix(r.URL.Path, "/debug/pprof/")
		switch name {
		case "":
			pprof.Index(w, r)
		case "profile":
			pprof.Profile(w, r)
		case "trace":
			pprof.Trace(w, r)
		case "symbol":
			pprof.Symbol(w, r)
		case "cmdline":
			http.NotFound(w, r)
		default:
			pprof.Handler(name).ServeHTTP(w, r) // an unknown name: 404
		}
	})
}

package web

import (
	"net/http"
	"strings"

	"github.com/sendlater/sendlater/core"
)

// routed serves mux and keeps the route pattern it chose in the request's
// record (withRequest), for the metrics: a route, never a raw path. A
// request of the terminal app (ChannelHeader) carries its channel.
func routed(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerValue(r.Header, ChannelHeader) == core.ChannelTUI {
			r = r.WithContext(core.WithChannel(r.Context(), core.ChannelTUI))
		}
		defer func() {
			if rq, ok := r.Context().Value(requestKey{}).(*request); ok {
				rq.pattern = r.Pattern // ServeMux sets it on r itself
			}
		}()
		mux.ServeHTTP(w, r)
	})
}

// routeOf is a pattern's path ("/api/messages/{id}" of "GET
// /api/messages/{id}"), or "none" when no route was chosen (a request the
// cross-origin check refused, or a panic before routing).
func routeOf(pattern string) string {
	if pattern == "" {
		return "none"
	}
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	return pattern
}

// methodOf bounds a request's method to the ones HTTP names: a client
// sending any other word is counted as "other".
func methodOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "other"
}

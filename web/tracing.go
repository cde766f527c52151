package web

import (
	"net"
	"net/http"
	"net/netip"

	"github.com/sendlater/sendlater/core"
)

// The attributes of a request's span.
const (
	attrRequestID = "request_id"
	attrMethod    = "http.request.method"
	attrRoute     = "http.route"
	attrStatus    = "http.response.status_code"
)

// traced makes a span of each request (Server.Tracer): named after its
// method and route pattern ("POST /api/messages"), never its raw path, with
// the request's id (X-Request-Id) and its status; a 5xx marks it failed.
// The W3C trace context (traceparent) of a request whose direct peer is a
// trusted proxy (trusted_proxies) is continued; anyone else's is ignored,
// so a client can neither attach our spans to a trace of its choosing nor
// force them to be sampled. It runs inside withRequest, whose record it
// reads; a nil t is next itself.
func traced(t core.Tracer, trusted []netip.Prefix, next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if peerTrusted(r, trusted) {
			ctx = t.Continue(ctx, r.Header.Get)
		}
		method := methodOf(r.Method)
		ctx, span := t.Start(ctx, method, core.SpanServer)
		if !t.Traced(ctx) {
			// Not recorded: nothing under it is (core.StartChild asks the
			// context), so the request goes on as it came, uncopied.
			next.ServeHTTP(w, r)
			return
		}
		rq, _ := ctx.Value(requestKey{}).(*request)
		panicked := true
		defer func() {
			status := http.StatusInternalServerError // a panic's
			if !panicked && rq != nil {
				status = rq.reply.sent.status
				if status == 0 {
					status = http.StatusOK
				}
			}
			endRequestSpan(span, rq, method, status)
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
		panicked = false
	})
}

func endRequestSpan(span core.Span, rq *request, method string, status int) {
	span.SetString(attrMethod, method)
	if rq != nil {
		span.SetString(attrRequestID, rq.id)
		if rq.pattern != "" {
			route := routeOf(rq.pattern)
			span.SetName(method + " " + route)
			span.SetString(attrRoute, route)
		}
	}
	span.SetInt(attrStatus, status)
	var err error
	if status >= 500 {
		err = core.Errorf(core.EInternal, "HTTP %d", status)
	}
	span.End(err)
}

// peerTrusted reports whether r's direct peer is a trusted proxy.
func peerTrusted(r *http.Request, trusted []netip.Prefix) bool {
	if len(trusted) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return isTrusted(host, trusted)
}

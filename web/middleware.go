package web

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
)

type requestKey struct{}

// permissionsPolicy switches off the browser features the web app never
// uses, for it and anything that might be injected into it.
const permissionsPolicy = "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), " +
	"microphone=(), payment=(), usb=()"

// oauthPaths are the social sign-in popup's start and callback: the popup
// goes to the provider and back and hands its result to its opener, which a
// Cross-Origin-Opener-Policy on them would sever.
const oauthPaths = "/api/auth/oauth/"

// contentSecurityPolicy is the CSP of every reply; the SPA runs under it.
// 'wasm-unsafe-eval' lets the browser compile WebAssembly (the Argon2id of
// sealed messages, hash-wasm, docs/sealed.md) and nothing else: eval and
// inline scripts stay refused.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: https:; connect-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// statusRecorder remembers the status and size of what it passed on: the
// access log's figures (replyWriter) and the audit's status (actAs).
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach Flush for Server-Sent Events.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// newRequestID is 64 random bits in hex, in one allocation. An id names a
// request in the logs; it guards nothing, so it comes from the runtime's
// per-thread generator (ChaCha8, seeded from the system's randomness)
// rather than from a read of the system's randomness per request.
func newRequestID() string {
	var b [16]byte
	n := rand.Uint64()
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = hexDigits[n&0xf]
		n >>= 4
	}
	return string(b[:])
}

// withRequest gives every request an id (X-Request-Id), a logger carrying it,
// its client's address (see clientAddress), security headers (with HSTS
// when https is set: the base URL is https), gzipped replies when compress
// is set (see replyWriter), panic recovery and one access log line. The log
// holds the path only: queries carry codes and tokens.
func withRequest(base *slog.Logger, m core.Metrics, trustedProxies []netip.Prefix, https, compress bool, next http.Handler) http.Handler {
	if m == nil {
		m = core.NoMetrics{}
	}
	// The same header values on every reply: shared, never appended to in
	// place (Header.Set replaces a slice, Add copies one of capacity 1).
	static := [...]struct {
		key string
		val []string
	}{
		{"X-Content-Type-Options", []string{"nosniff"}},
		{"Referrer-Policy", []string{"strict-origin-when-cross-origin"}},
		{"X-Frame-Options", []string{"DENY"}},
		{"Content-Security-Policy", []string{contentSecurityPolicy}},
		{"Permissions-Policy", []string{permissionsPolicy}},
	}
	coop := []string{"same-origin-allow-popups"}
	access := newAccessLog(base)
	hsts := []string{"max-age=31536000"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rq := &request{Context: r.Context(), base: base, id: newRequestID(), client: clientAddress(r, trustedProxies)}
		r = r.WithContext(rq) // rq is the context: it carries itself and the identity slot

		h := w.Header()
		rq.idHeader[0] = rq.id
		h["X-Request-Id"] = rq.idHeader[:]
		for _, kv := range static {
			h[kv.key] = kv.val
		}
		if !strings.HasPrefix(r.URL.Path, oauthPaths) {
			// Popups the web app opens (social sign-in) keep their opener.
			h["Cross-Origin-Opener-Policy"] = coop
		}
		if https {
			h["Strict-Transport-Security"] = hsts
		}

		reply := &rq.reply
		reply.begin(w, r, compress)
		m.InFlight(1)
		defer m.InFlight(-1) // also after a panic that goes on up
		defer func() {
			p := recover()
			reply.close() // what the handler wrote goes out, panic or not
			sent := &reply.sent
			if p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				rq.logger().Error("panic", "panic", fmt.Sprint(p))
				if sent.status == 0 {
					writeError(sent, r, core.Errorf(core.EInternal, "Internal error."))
				}
			}
			status := sent.status
			if status == 0 { // nothing written: net/http answers 200
				status = http.StatusOK
			}
			end := time.Now() // one reading for the metrics and the access line
			m.Request(routeOf(rq.pattern), methodOf(r.Method), status, end.Sub(start))
			access.write(rq, r, start, end)
		}()
		next.ServeHTTP(reply, r)
	})
}

// request is what withRequest keeps of a request, in one allocation: the
// request's context itself, the request's context with two values (see
// Value): itself under requestKey and its identity slot (the
// core.IdentitySlot's key), instead of a layer of context.WithValue for
// each. Its logger carries the request's id and
// is made when a handler first logs, not for every request (the access log
// line names the id itself). It also carries the request's client
// (clientIP), the writer of its reply, the slot of its identity (see
// withIdentity) and the X-Request-Id header's value.
type request struct {
	context.Context // the request's context as it came
	base            *slog.Logger
	id              string
	client          string
	once            sync.Once
	l               *slog.Logger
	reply           replyWriter
	identity        core.IdentitySlot
	idHeader        [1]string
	// pattern is the route the mux chose (routed); empty: none did.
	pattern string
}

// Value is the request itself under requestKey, its identity slot under
// the identity's key, and the context it came with holds for any other key.
func (rq *request) Value(key any) any {
	if _, ok := key.(requestKey); ok {
		return rq
	}
	if v, ok := rq.identity.Value(key); ok {
		return v
	}
	return rq.Context.Value(key)
}

// withIdentity is r acting as id (core.IdentityFrom): id fills the identity
// slot withRequest put in r's context, so that the request is not copied
// again; a request that did not come through withRequest gets a copy with
// id in its context.
func withIdentity(r *http.Request, id *core.Identity) *http.Request {
	if rq, ok := r.Context().Value(requestKey{}).(*request); ok {
		rq.identity.Set(id)
		return r
	}
	return r.WithContext(core.WithIdentity(r.Context(), id))
}

func (rq *request) logger() *slog.Logger {
	rq.once.Do(func() { rq.l = rq.base.With("request_id", rq.id) })
	return rq.l
}

// clientIP is the address a request came from, as withRequest resolved it:
// what the rate limits count and the access log shows.
func clientIP(r *http.Request) string {
	if rq, ok := r.Context().Value(requestKey{}).(*request); ok {
		return rq.client
	}
	return clientAddress(r, nil)
}

// clientAddress is the direct peer of a request, unless that is one of the
// trusted proxies (config trusted_proxies): then it is the last address of
// X-Forwarded-For that is not a trusted proxy, the client the proxies saw.
// Without trusted proxies the header is ignored, since anyone can send it.
func clientAddress(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(trusted) == 0 || !isTrusted(host, trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header["X-Forwarded-For"], ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if _, err := netip.ParseAddr(hop); err != nil {
			break // a malformed hop: stop at the last proxy we trust
		}
		if !isTrusted(hop, trusted) {
			return hop
		}
		host = hop
	}
	return host
}

func isTrusted(addr string, trusted []netip.Prefix) bool {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

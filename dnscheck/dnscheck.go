// Package dnscheck is core.MailDomains over DNS: whether a recipient's
// domain receives email (its MX records, else its A/AAAA records), asked of
// the system's resolver or of the one mail.dns_server names, each answer
// cached, each lookup bounded in time, and a resolver that stops answering
// left alone for a while instead of slowing every save. Its Resolver also
// reads the TXT records that DKIM verification and `doctor mail` need.
package dnscheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/net/idna"

	"github.com/sendlater/sendlater/core"
)

// Defaults of Config's zero fields.
const (
	DefaultQueryTimeout = time.Second
	DefaultTTL          = time.Hour
	DefaultNegativeTTL  = 10 * time.Minute
	DefaultPause        = 30 * time.Second
	DefaultMaxEntries   = 10000
)

// ErrResolverDown is the answer while the resolver is paused after it
// failed to answer: no lookup is tried until the pause ends.
var ErrResolverDown = errors.New("dnscheck: the resolver is not answering")

// Config is how a Checker asks and remembers.
type Config struct {
	// Server is the resolver, host or host:port (port 53 when none); "":
	// the system's first nameserver (/etc/resolv.conf).
	Server string
	// QueryTimeout bounds one DNS query.
	QueryTimeout time.Duration
	// TTL is how long a domain that receives mail is remembered;
	// NegativeTTL one that does not.
	TTL, NegativeTTL time.Duration
	// Pause is how long lookups answer ErrResolverDown at once after the
	// resolver failed to answer (a timeout, a refused connection).
	Pause time.Duration
	// MaxEntries bounds the cache; the least recently used leaves first.
	MaxEntries int
	// Now is the clock of the cache and the pause; nil: time.Now.
	Now func() time.Time
}

// Checker is core.MailDomains over DNS.
type Checker struct {
	res   *Resolver
	cfg   Config
	cache *cache
}

var _ core.MailDomains = (*Checker)(nil)

// New returns the checker of c; an error when c.Server is not a host or
// host:port.
func New(c Config) (*Checker, error) {
	res, err := NewResolver(c.Server, c.QueryTimeout)
	if err != nil {
		return nil, err
	}
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.NegativeTTL <= 0 {
		c.NegativeTTL = DefaultNegativeTTL
	}
	if c.Pause <= 0 {
		c.Pause = DefaultPause
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return &Checker{res: res, cfg: c, cache: newCache(c.MaxEntries)}, nil
}

// Resolver is the checker's resolver, for other lookups.
func (c *Checker) Resolver() *Resolver { return c.res }

// ReceivesMail tells whether domain has an MX record that is not a null MX
// (RFC 7505), or, without MX records, an A or AAAA record (RFC 5321
// section 5.1). Answers are cached; a failure is not, but pauses lookups.
func (c *Checker) ReceivesMail(ctx context.Context, domain string) (bool, error) {
	name, err := toASCII(domain)
	if err != nil {
		return false, err
	}
	now := c.cfg.Now()
	if ok, found := c.cache.get(name, now); found {
		return ok, nil
	}
	if c.cache.paused(now) {
		return false, ErrResolverDown
	}
	ok, err := c.lookup(ctx, name)
	if err != nil {
		var unreachable *unreachableError
		if errors.As(err, &unreachable) {
			c.cache.pause(c.cfg.Now().Add(c.cfg.Pause))
		}
		return false, err
	}
	ttl := c.cfg.TTL
	if !ok {
		ttl = c.cfg.NegativeTTL
	}
	c.cache.put(name, ok, c.cfg.Now().Add(ttl))
	return ok, nil
}

func (c *Checker) lookup(ctx context.Context, name string) (bool, error) {
	r, err := c.res.Query(ctx, name, dns.TypeMX)
	if err != nil {
		return false, err
	}
	if r.Rcode == dns.RcodeNameError {
		return false, nil
	}
	var mxs []*dns.MX
	for _, rr := range r.Answer {
		if mx, ok := rr.(*dns.MX); ok {
			mxs = append(mxs, mx)
		}
	}
	if len(mxs) > 0 {
		return !(len(mxs) == 1 && mxs[0].Mx == "."), nil
	}
	for _, t := range []uint16{dns.TypeA, dns.TypeAAAA} {
		r, err := c.res.Query(ctx, name, t)
		if err != nil {
			return false, err
		}
		for _, rr := range r.Answer {
			if rr.Header().Rrtype == t {
				return true, nil
			}
		}
	}
	return false, nil
}

// toASCII is domain as DNS asks for it: lower case, an internationalized
// name in its A-label form.
func toASCII(domain string) (string, error) {
	name, err := idna.Lookup.ToASCII(strings.TrimSuffix(strings.ToLower(domain), "."))
	if err != nil || name == "" {
		return "", fmt.Errorf("dnscheck: %q is not a domain name", domain)
	}
	return name, nil
}

// Resolver asks one DNS server.
type Resolver struct {
	server  string
	timeout time.Duration
}

// NewResolver returns the resolver at server (host or host:port; "": the
// system's first nameserver), each query bounded by timeout (zero:
// DefaultQueryTimeout).
func NewResolver(server string, timeout time.Duration) (*Resolver, error) {
	addr, err := serverAddr(server)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultQueryTimeout
	}
	return &Resolver{server: addr, timeout: timeout}, nil
}

// Server is the host:port the resolver asks.
func (r *Resolver) Server() string { return r.server }

// serverAddr is server with its port, or the system's nameserver.
func serverAddr(server string) (string, error) {
	if server == "" {
		conf, err := dns.ClientConfigFromFile("/etc/resolv.conf")
		if err != nil || len(conf.Servers) == 0 {
			return "127.0.0.1:53", nil // what the Go resolver does too
		}
		return net.JoinHostPort(conf.Servers[0], conf.Port), nil
	}
	if strings.ContainsAny(server, "/ ") {
		return "", fmt.Errorf("dnscheck: %q is not a host or host:port", server)
	}
	if host, port, err := net.SplitHostPort(server); err == nil {
		if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("dnscheck: %q is not host:port", server)
		}
		return server, nil
	}
	if strings.ContainsAny(server, "[]") {
		return "", fmt.Errorf("dnscheck: %q is not a host or host:port", server)
	}
	return net.JoinHostPort(server, "53"), nil
}

// unreachableError is a query the server did not answer.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string {
	return "dnscheck: the resolver did not answer: " + e.err.Error()
}
func (e *unreachableError) Unwrap() error { return e.err }

// Query asks the resolver for name's records of type t (over TCP when the
// UDP answer was truncated). An answer other than NOERROR or NXDOMAIN is an
// error; so is no answer.
func (r *Resolver) Query(ctx context.Context, name string, t uint16) (*dns.Msg, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), t)
	m.SetEdns0(1232, false)
	resp, _, err := (&dns.Client{Timeout: r.timeout}).ExchangeContext(ctx, m, r.server)
	if err == nil && resp.Truncated {
		resp, _, err = (&dns.Client{Net: "tcp", Timeout: r.timeout}).ExchangeContext(ctx, m, r.server)
	}
	if err != nil {
		return nil, &unreachableError{err}
	}
	if resp.Rcode != dns.RcodeSuccess && resp.Rcode != dns.RcodeNameError {
		return nil, fmt.Errorf("dnscheck: %s %s: %s", dns.TypeToString[t], name, dns.RcodeToString[resp.Rcode])
	}
	return resp, nil
}

// LookupTXT returns the TXT records of name, each one string (its parts
// joined); none when the name or its TXT records do not exist.
func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	resp, err := r.Query(ctx, name, dns.TypeTXT)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rr := range resp.Answer {
		if txt, ok := rr.(*dns.TXT); ok {
			out = append(out, strings.Join(txt.Txt, ""))
		}
	}
	return out, nil
}

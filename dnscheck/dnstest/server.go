// Package dnstest is the tests' DNS server: in-process, on a loopback UDP
// and TCP port, answering from records a test adds in zone-file syntax
// (github.com/miekg/dns), NXDOMAIN for a name it has none of, and able to
// fail (SERVFAIL) or stop answering to show what a broken resolver does.
package dnstest

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/sendlater/sendlater/dnscheck"
)

// Server is a DNS server for one test.
type Server struct {
	// Addr is its host:port, for UDP and TCP alike.
	Addr string

	mu       sync.Mutex
	records  map[string][]dns.RR // by lower-case FQDN
	failing  map[string]bool     // SERVFAIL for these FQDNs
	silent   bool
	queries  atomic.Int64
	udp, tcp *dns.Server
}

// MustStart starts a server, stopped when tb ends.
func MustStart(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{records: map[string][]dns.RR{}, failing: map[string]bool{}}
	var pc net.PacketConn
	var l net.Listener
	for range 10 { // a free UDP port whose TCP twin is free too
		p, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		if l, err = net.Listen("tcp", p.LocalAddr().String()); err == nil {
			pc = p
			break
		}
		p.Close()
	}
	if pc == nil {
		tb.Fatal("dnstest: no free UDP and TCP port pair")
	}
	s.Addr = pc.LocalAddr().String()
	h := dns.HandlerFunc(s.serve)
	s.udp = &dns.Server{PacketConn: pc, Handler: h}
	s.tcp = &dns.Server{Listener: l, Handler: h}
	started := make(chan struct{}, 2)
	s.udp.NotifyStartedFunc = func() { started <- struct{}{} }
	s.tcp.NotifyStartedFunc = func() { started <- struct{}{} }
	go s.udp.ActivateAndServe()
	go s.tcp.ActivateAndServe()
	<-started
	<-started
	tb.Cleanup(func() {
		s.udp.Shutdown()
		s.tcp.Shutdown()
	})
	return s
}

// Add adds records in zone-file syntax, one a line ("example.com. 300 IN
// MX 10 mx.example.com."); a TXT value longer than 255 bytes may be given
// as one quoted string: it is split as DNS needs.
func (s *Server) Add(tb testing.TB, lines ...string) {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range lines {
		rr, err := dns.NewRR(line)
		if err != nil {
			tb.Fatalf("dnstest: %q: %v", line, err)
		}
		if txt, ok := rr.(*dns.TXT); ok {
			txt.Txt = splitTXT(strings.Join(txt.Txt, ""))
		}
		name := strings.ToLower(rr.Header().Name)
		s.records[name] = append(s.records[name], rr)
	}
}

// Remove removes every record of name.
func (s *Server) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, strings.ToLower(dns.Fqdn(name)))
}

// Fail makes the server answer SERVFAIL for name.
func (s *Server) Fail(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing[strings.ToLower(dns.Fqdn(name))] = true
}

// Silence makes the server read queries and answer none (a resolver that is
// down), or answer again.
func (s *Server) Silence(silent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silent = silent
}

// Queries is how many queries the server has read.
func (s *Server) Queries() int64 { return s.queries.Load() }

func (s *Server) serve(w dns.ResponseWriter, req *dns.Msg) {
	s.queries.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.silent || len(req.Question) != 1 {
		return
	}
	q := req.Question[0]
	name := strings.ToLower(q.Name)
	resp := new(dns.Msg)
	resp.SetReply(req)
	resp.Authoritative, resp.RecursionAvailable = true, true
	switch rrs, known := s.records[name]; {
	case s.failing[name]:
		resp.Rcode = dns.RcodeServerFailure
	case !known:
		resp.Rcode = dns.RcodeNameError
	default:
		for _, rr := range rrs {
			if rr.Header().Rrtype == q.Qtype {
				resp.Answer = append(resp.Answer, dns.Copy(rr))
			}
		}
	}
	w.WriteMsg(resp)
}

// splitTXT cuts s into the strings of at most 255 bytes a TXT record holds.
func splitTXT(s string) []string {
	var out []string
	for len(s) > 255 {
		out = append(out, s[:255])
		s = s[255:]
	}
	return append(out, s)
}

// LookupTXT asks the server, over the network as any client would, for
// the TXT records of name (a DKIM verifier's lookup).
func (s *Server) LookupTXT(name string) ([]string, error) {
	r, err := dnscheck.NewResolver(s.Addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return r.LookupTXT(context.Background(), name)
}

// Package smtptest runs a real SMTP server for tests (github.com/emersion/go-smtp
// on 127.0.0.1): it records every message, can require AUTH PLAIN, speak
// STARTTLS or implicit TLS, and inject failures and delays.
package smtptest

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one received email.
type Message struct {
	From   string      // envelope sender (MAIL FROM)
	To     []string    // envelope recipients (RCPT TO)
	Data   []byte      // the raw message as received
	Header mail.Header // its parsed header
	DKIM   []string    // the domains whose DKIM signature verified (WithDKIM)
}

// Option configures Start.
type Option func(*Server)

// WithAuth requires AUTH PLAIN with these credentials before MAIL FROM. It
// allows AUTH without TLS, as local test servers do.
func WithAuth(username, password string) Option {
	return func(s *Server) { s.username, s.password = username, password }
}

// WithStartTLS offers STARTTLS with cfg.
func WithStartTLS(cfg *tls.Config) Option {
	return func(s *Server) { s.startTLS = cfg }
}

// WithImplicitTLS speaks TLS from the first byte, as on port 465.
func WithImplicitTLS(cfg *tls.Config) Option {
	return func(s *Server) { s.implicitTLS = cfg }
}

// WithoutPipelining leaves PIPELINING out of the server's EHLO reply, as
// servers without RFC 2920 do, so that clients send one command at a time.
func WithoutPipelining() Option {
	return func(s *Server) { s.noPipelining = true }
}

// WithDKIM makes the server verify every email's DKIM signature with the
// public keys lookupTXT finds (a DNS server of the test's): an email
// without a valid signature is refused with 550 5.7.20 and not recorded.
// Message.DKIM then holds the domains whose signature verified.
func WithDKIM(lookupTXT func(name string) ([]string, error)) Option {
	return func(s *Server) { s.dkimLookup = lookupTXT }
}

// Discarding makes the server read every email and keep none (nor parse
// it, nor verify its DKIM signature, nor keep Arrivals; Commands still
// counts): Messages stays empty and Received counts. For benchmarks,
// whose heap would otherwise hold every email of thousands sent, a heap
// no real receiving server puts in the sender's process, and whose
// marking the sender's collector would pay for.
func Discarding() Option {
	return func(s *Server) { s.discard = true }
}

// Server is a running test SMTP server. It is safe for concurrent use.
type Server struct {
	username, password string
	startTLS           *tls.Config
	implicitTLS        *tls.Config
	noPipelining       bool
	dkimLookup         func(name string) ([]string, error)
	discard            bool

	srv *smtp.Server
	ln  net.Listener

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever a message arrives
	messages []Message
	received int // emails taken since Reset, kept or not
	failMail fault
	failRcpt fault
	failData fault
	rejects  map[string]*smtp.SMTPError // by lower-cased address, for good
	delay    time.Duration
	conns    []*smtp.Conn
	commands map[string]int // client commands seen, by verb
	arrivals [][]string     // the verbs of the commands completed by each read, reads without any left out
}

type fault struct {
	n   int
	err *smtp.SMTPError
}

// take reports the error to answer with, counting the fault down.
func (f *fault) take() error {
	if f.n <= 0 {
		return nil
	}
	f.n--
	return f.err
}

// Start listens on 127.0.0.1:0 and serves until the test ends.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{changed: make(chan struct{})}
	for _, opt := range opts {
		opt(s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("smtptest: listen: %v", err)
	}
	ln = &countingListener{Listener: ln, server: s}
	if s.implicitTLS != nil {
		ln = tls.NewListener(ln, s.implicitTLS)
	}
	s.ln = ln
	s.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		return &session{server: s}, nil
	}))
	s.srv.Domain = "localhost"
	s.srv.TLSConfig = s.startTLS
	s.srv.AllowInsecureAuth = true
	s.srv.MaxMessageBytes = 10 << 20
	s.srv.ReadTimeout = time.Minute
	s.srv.WriteTimeout = time.Minute
	logger := &tbLogger{tb: tb}
	s.srv.ErrorLog = logger
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.srv.Serve(ln)
	}()
	tb.Cleanup(func() {
		s.Close()
		<-done
		logger.stop()
	})
	return s
}

// Addr returns "127.0.0.1:port".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Host returns "127.0.0.1".
func (s *Server) Host() string { return s.ln.Addr().(*net.TCPAddr).IP.String() }

// Port returns the port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Close stops the server before the test ends, e.g. to test a server that
// is down.
// The listener is closed here too: go-smtp's Close only closes listeners its
// Serve has registered, and Serve may not have started yet.
func (s *Server) Close() {
	_ = s.srv.Close()
	_ = s.ln.Close()
}

// DropConnections closes every client connection and keeps listening, as a
// server does that times out idle clients.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// Messages returns a copy of the messages received so far, in arrival order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// WaitFor waits until at least n messages arrived and returns them all, or
// returns an error after timeout with what arrived.
func (s *Server) WaitFor(n int, timeout time.Duration) ([]Message, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got, changed := append([]Message(nil), s.messages...), s.changed
		s.mu.Unlock()
		if len(got) >= n {
			return got, nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return got, fmt.Errorf("smtptest: got %d of %d messages in %v", len(got), n, timeout)
		}
	}
}

// Commands returns how many commands of verb (NOOP, MAIL, RSET ...) clients
// sent since the start or the last Reset, on plain-text connections (those
// that never switched to TLS).
func (s *Server) Commands(verb string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commands[strings.ToUpper(verb)]
}

// Arrivals returns the verbs of the client commands seen (as Commands
// counts them), grouped by the read of the connection that completed them:
// commands a client pipelined in one write arrive together, e.g.
// [MAIL RCPT DATA].
func (s *Server) Arrivals() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrivals)
}

// Reset forgets the received messages, the commands counted, pending faults
// and the delay.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages, s.received, s.commands, s.arrivals = nil, 0, nil, nil
	s.failMail, s.failRcpt, s.failData, s.delay, s.rejects = fault{}, fault{}, fault{}, 0, nil
}

// Reject answers every RCPT TO of address with code and msg, as a mail
// server that knows no such mailbox (550) does, until Reset.
func (s *Server) Reject(address string, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rejects == nil {
		s.rejects = map[string]*smtp.SMTPError{}
	}
	s.rejects[strings.ToLower(address)] = newFault(1, code, msg).err
}

// Accept takes address again after Reject.
func (s *Server) Accept(address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rejects, strings.ToLower(address))
}

// FailNextMail answers the next n MAIL FROM commands with code and msg.
func (s *Server) FailNextMail(n, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failMail = newFault(n, code, msg)
}

// FailNext answers the next n RCPT TO commands with code and msg, e.g.
// 451 (temporary) or 550 (permanent).
func (s *Server) FailNext(n, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRcpt = newFault(n, code, msg)
}

// FailNextData answers the next n messages, after their data arrived, with
// code and msg instead of accepting them.
func (s *Server) FailNextData(n, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failData = newFault(n, code, msg)
}

func newFault(n, code int, msg string) fault {
	return fault{n: n, err: &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: msg}}
}

// SetDelay makes the server wait d before it answers the end of each
// message's data (0 turns it off).
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Received is how many emails the server took since Reset, kept or not
// (Discarding).
func (s *Server) Received() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.received
}

func (s *Server) record(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received++
	if !s.discard {
		s.messages = append(s.messages, m)
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

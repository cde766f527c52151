// Package smtptest runs a real SMTP server for tests (github.com/emersion/go-smtp
// on 127.0.0.1): it records every message, can require AUTH PLAIN, speak
// STARTTLS or implicit TLS, and inject failures and delays.
package smtptest

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one received email.
type Message struct {
	From   string      // envelope sender (MAIL FROM)
	To     []string    // envelope recipients (RCPT TO)
	Data   []byte      // the raw message as received
	Header mail.Header // its parsed header
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

// Server is a running test SMTP server. It is safe for concurrent use.
type Server struct {
	username, password string
	startTLS           *tls.Config
	implicitTLS        *tls.Config
	noPipelining       bool

	srv *smtp.Server
	ln  net.Listener

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever a message arrives
	messages []Message
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
	s.messages, s.commands, s.arrivals = nil, nil, nil
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

func (s *Server) record(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, m)
	close(s.changed)
	s.changed = make(chan struct{})
}

type session struct {
	server *Server
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (se *session) AuthMechanisms() []string {
	if se.server.username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (se *session) Auth(mech string) (sasl.Server, error) {
	if se.server.username == "" || mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != se.server.username || password != se.server.password {
			return smtp.ErrAuthFailed
		}
		se.authed = true
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.server.username != "" && !se.authed {
		return smtp.ErrAuthRequired
	}
	se.server.mu.Lock()
	err := se.server.failMail.take()
	se.server.mu.Unlock()
	if err != nil {
		return err
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.server.mu.Lock()
	err := se.server.failRcpt.take()
	if rej := se.server.rejects[strings.ToLower(to)]; err == nil && rej != nil {
		err = rej
	}
	se.server.mu.Unlock()
	if err != nil {
		return err
	}
	se.to = append(se.to, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	se.server.mu.Lock()
	delay, failErr := se.server.delay, se.server.failData.take()
	se.server.mu.Unlock()
	time.Sleep(delay)
	if failErr != nil {
		return failErr
	}
	m := Message{From: se.from, To: append([]string(nil), se.to...), Data: data}
	if parsed, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		m.Header = parsed.Header
	}
	se.server.record(m)
	return nil
}

func (se *session) Reset() { se.from, se.to = "", nil }

func (se *session) Logout() error { return nil }

// tbLogger sends the server's error log to the test log until the test
// ends; connection goroutines may still report after that, which testing
// does not allow.
type tbLogger struct {
	mu      sync.Mutex
	tb      testing.TB
	stopped bool
}

func (l *tbLogger) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}

func (l *tbLogger) Printf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.tb.Logf("smtptest: "+format, v...)
	}
}

func (l *tbLogger) Println(v ...any) { l.Printf("%s", fmt.Sprintln(v...)) }

// countingListener counts the commands its connections' clients send.
type countingListener struct {
	net.Listener
	server *Server
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, server: l.server}, nil
}

// countingConn reads the client's lines as they pass, counting the first
// word of each outside a message's data.
type countingConn struct {
	net.Conn
	server *Server
	line   []byte
	inData bool
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	var verbs []string
	for _, b := range p[:n] {
		if b != '\n' {
			c.line = append(c.line, b)
			continue
		}
		if verb := c.command(strings.TrimRight(string(c.line), "\r")); verb != "" {
			verbs = append(verbs, verb)
		}
		c.line = c.line[:0]
	}
	if len(verbs) > 0 {
		c.server.mu.Lock()
		if c.server.commands == nil {
			c.server.commands = map[string]int{}
		}
		for _, v := range verbs {
			c.server.commands[v]++
		}
		c.server.arrivals = append(c.server.arrivals, verbs)
		c.server.mu.Unlock()
	}
	return n, err
}

// command returns the verb of a line outside a message's data, "" for a
// line of the data.
func (c *countingConn) command(line string) string {
	if c.inData {
		c.inData = line != "."
		return ""
	}
	verb, _, _ := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	c.inData = verb == "DATA"
	return verb
}

// pipeliningLine is go-smtp's offer of PIPELINING in its EHLO reply (never
// the reply's last line).
var pipeliningLine = []byte("250-PIPELINING\r\n")

// Write leaves PIPELINING out of the EHLO reply when the server was started
// WithoutPipelining (go-smtp always offers it; the reply goes out in one
// write).
func (c *countingConn) Write(p []byte) (int, error) {
	if c.server.noPipelining {
		if i := bytes.Index(p, pipeliningLine); i >= 0 {
			q := append(slices.Clip(p[:i]), p[i+len(pipeliningLine):]...)
			if _, err := c.Conn.Write(q); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}

package mailer

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// SMTP connection security.
const (
	TLSNone     = "none"     // plain text; go-mail refuses AUTH unless the host is localhost
	TLSStartTLS = "starttls" // STARTTLS is required
	TLSImplicit = "tls"      // TLS from the first byte (port 465)
)

// Defaults of SMTPConfig.
const (
	DefaultSMTPTimeout  = 15 * time.Second
	DefaultSMTPPoolSize = 4
)

// SMTPConfig configures the SMTP transport.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string // empty: no AUTH
	Password string
	TLS      string // TLSNone, TLSStartTLS or TLSImplicit; empty means starttls
	From     core.Address
	Timeout  time.Duration // bounds the dial and each SMTP command; 0: DefaultSMTPTimeout
	Helo     string        // EHLO name; empty: the local host name
	PoolSize int           // connections kept open; 0: DefaultSMTPPoolSize

	// TLSConfig overrides the TLS settings (server name, roots). It exists for
	// tests against a self-signed server; production leaves it nil.
	TLSConfig *tls.Config
	// Dial overrides how connections are made (a test that names its
	// server by a host name no resolver knows); production leaves it nil.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// DKIM signs every email; nil: none is signed.
	DKIM *DKIM
	// TokenHeader names a header that carries the return path's token
	// (core.BounceToken) on every email sent with a return path: a
	// provider that replaces the return path with its own keeps it
	// (Postmark: X-PM-Metadata-sendlater-verp, its metadata); "": none.
	TokenHeader string
}

// SMTP sends email through an SMTP server over a small pool of reused
// connections. It is safe for concurrent use.
type SMTP struct {
	client  *mail.Client // configuration shared by every connection
	from    core.Address
	addr    string
	timeout time.Duration
	secret  string
	ours    []string // our systems' names, hidden in the replies an author reads
	dkim    *DKIM
	token   string // TokenHeader

	slots chan struct{} // one token per connection that may be in use

	mu     sync.Mutex
	idle   []*pooledConn
	closed bool
	errs   atomic.Uint64 // sends that failed at the mail server (Stats)
}

// SMTPStats are the pool's figures for the operator's metrics.
type SMTPStats struct {
	Idle, InUse int    // connections idle in the pool, and sends holding one
	Errors      uint64 // sends that failed at the mail server, since the start
}

// Open is the connections open: idle and in use.
func (s SMTPStats) Open() int { return s.Idle + s.InUse }

// Stats tells the pool's figures now.
func (s *SMTP) Stats() SMTPStats {
	s.mu.Lock()
	idle := len(s.idle)
	s.mu.Unlock()
	return SMTPStats{Idle: idle, InUse: len(s.slots), Errors: s.errs.Load()}
}

// pooledConn is a connection of the pool and when its last email went out.
type pooledConn struct {
	*smtp.Client
	lastUsed time.Time // zero until its first email
}

var _ core.Mailer = (*SMTP)(nil)

// NewSMTP checks cfg and returns the transport. It does not connect: the
// first Send does, so the app starts while the mail server is away.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, errors.New("mailer: SMTP host is required")
	}
	if cfg.Port <= 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("mailer: invalid SMTP port %d", cfg.Port)
	}
	if cfg.From.Address == "" {
		return nil, errors.New("mailer: SMTP sender address is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultSMTPTimeout
	}
	if cfg.PoolSize <= 0 {
		cfg.PoolSize = DefaultSMTPPoolSize
	}
	opts := []mail.Option{mail.WithPort(cfg.Port), mail.WithTimeout(cfg.Timeout)}
	switch strings.ToLower(cfg.TLS) {
	case TLSNone:
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case TLSStartTLS, "":
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, mail.WithSSL())
	default:
		return nil, fmt.Errorf("mailer: SMTP TLS must be none, starttls or tls, not %q", cfg.TLS)
	}
	if cfg.TLSConfig != nil {
		tc := cfg.TLSConfig.Clone()
		if tc.ServerName == "" {
			tc.ServerName = cfg.Host
		}
		opts = append(opts, mail.WithTLSConfig(tc))
	}
	if cfg.Dial != nil {
		opts = append(opts, mail.WithDialContextFunc(cfg.Dial))
	}
	if cfg.Helo != "" {
		opts = append(opts, mail.WithHELO(cfg.Helo))
	}
	if cfg.Username != "" {
		// Without TLS only PLAIN is left, and go-mail sends it to localhost only.
		auth := mail.SMTPAuthAutoDiscover
		if strings.EqualFold(cfg.TLS, TLSNone) {
			auth = mail.SMTPAuthPlain
		}
		opts = append(opts, mail.WithSMTPAuth(auth), mail.WithUsername(cfg.Username), mail.WithPassword(cfg.Password))
	}
	client, err := mail.NewClient(cfg.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("mailer: SMTP client: %w", err)
	}
	return &SMTP{
		client:  client,
		from:    cfg.From,
		addr:    fmt.Sprintf("%s:%d", cfg.Host, cfg.Port),
		timeout: cfg.Timeout,
		secret:  cfg.Password,
		ours:    ourNames(cfg.Host, cfg.Port, cfg.Helo),
		slots:   make(chan struct{}, cfg.PoolSize),
		dkim:    cfg.DKIM,
		token:   cfg.TokenHeader,
	}, nil
}

// Send delivers e. It fills e.Date and e.MessageID when they are empty. A
// failure that may pass on a later try is a *core.TemporaryError: a 4xx reply,
// a network error, a timeout, a failed connect, TLS handshake or AUTH (these
// are about the transport, not the email). A 5xx reply to the email is
// permanent.
//
// ctx bounds the wait for a connection and the dial; once the SMTP
// transaction has started it runs to its end or to Timeout, because cutting
// it short would leave unknown whether the server took the email.
func (s *SMTP) Send(ctx context.Context, e *core.Email) error {
	msg, err := buildMsg(e, s.from)
	if err != nil {
		return err
	}
	if tok := core.BounceToken(e.ReturnPath); s.token != "" && tok != "" {
		msg.SetGenHeader(mail.Header(s.token), tok)
	}
	env, err := envelopeOf(msg)
	if err != nil {
		return s.redact(fmt.Errorf("mailer: %w", err))
	}
	var body io.WriterTo = msg
	if s.dkim != nil {
		var signed bytes.Buffer
		if err := s.dkim.sign(&signed, msg); err != nil {
			return fmt.Errorf("mailer: DKIM: %w", err)
		}
		body = signedMsg(signed.Bytes())
	}
	if err := ctx.Err(); err != nil {
		return &core.TemporaryError{Err: err}
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return &core.TemporaryError{Err: fmt.Errorf("mailer: waiting for an SMTP connection: %w", ctx.Err())}
	}
	defer func() { <-s.slots }()

	conn, reused, err := s.conn(ctx)
	if err != nil {
		s.errs.Add(1)
		return err
	}
	delivered, err := s.sendOn(conn, body, env)
	if err != nil && reused && isStale(err) {
		// The pooled connection went stale while idle; nothing was sent on it.
		_ = conn.Close()
		if conn, err = s.dial(ctx); err != nil {
			s.errs.Add(1)
			return err
		}
		delivered, err = s.sendOn(conn, body, env)
	}
	if err == nil {
		s.release(conn)
		return nil
	}
	s.discard(conn, err)
	if delivered {
		// The server accepted the email; only what followed failed.
		return nil
	}
	s.errs.Add(1)
	return s.classify(err)
}

// Close closes the idle connections; connections in use close when their
// send ends. Send after Close fails with a temporary error.
func (s *SMTP) Close() error {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	var errs []error
	for _, c := range idle {
		if err := s.client.CloseWithSMTPClient(c.Client); err != nil {
			errs = append(errs, err)
		}
	}
	return s.redact(errors.Join(errs...))
}

// conn returns an idle pooled connection or a new one.
func (s *SMTP) conn(ctx context.Context) (c *pooledConn, reused bool, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, false, &core.TemporaryError{Err: errors.New("mailer: SMTP transport is closed")}
	}
	if n := len(s.idle); n > 0 {
		c = s.idle[n-1]
		s.idle = s.idle[:n-1]
	}
	s.mu.Unlock()
	if c != nil {
		return c, true, nil
	}
	c, err = s.dial(ctx)
	return c, false, err
}

func (s *SMTP) dial(ctx context.Context) (*pooledConn, error) {
	c, err := s.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return nil, &core.TemporaryError{Err: s.redact(fmt.Errorf("mailer: connect to %s: %w", s.addr, err))}
	}
	return &pooledConn{Client: c}, nil
}

// release puts a healthy connection back into the pool.
func (s *SMTP) release(c *pooledConn) {
	s.mu.Lock()
	if !s.closed {
		s.idle = append(s.idle, c)
		c = nil
	}
	s.mu.Unlock()
	if c != nil {
		_ = s.client.CloseWithSMTPClient(c.Client)
	}
}

// discard drops a connection after a failure. A connection that still talks
// (the server replied with an error) gets a QUIT; a broken one is just closed.
func (s *SMTP) discard(c *pooledConn, err error) {
	if replyCode(err) != 0 {
		_ = s.client.CloseWithSMTPClient(c.Client)
		return
	}
	_ = c.Close()
}

// classify is the error of a failed transaction: all of it for the log, the
// server's reply (authorReply) for the author, temporary unless the reply
// is a 5xx.
func (s *SMTP) classify(err error) error {
	full := s.redact(fmt.Errorf("mailer: send via %s: %w", s.addr, err))
	if reply := authorReply(err, s.ours); reply != "" {
		full = &replyError{err: full, reply: reply}
	}
	if code := replyCode(err); code >= 500 && code < 600 {
		return full
	}
	return &core.TemporaryError{Err: full}
}

// redact keeps the SMTP password out of error texts, whatever a server or
// library echoes back.
func (s *SMTP) redact(err error) error {
	if err == nil || s.secret == "" || !strings.Contains(err.Error(), s.secret) {
		return err
	}
	return &redactedError{err: err, secret: s.secret}
}

type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[redacted]")
}
func (e *redactedError) Unwrap() error { return e.err }

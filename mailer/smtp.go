package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"sync"
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

	slots chan struct{} // one token per connection that may be in use

	mu     sync.Mutex
	idle   []*pooledConn
	closed bool
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
	env, err := envelopeOf(msg)
	if err != nil {
		return s.redact(fmt.Errorf("mailer: %w", err))
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
		return err
	}
	delivered, err := s.sendOn(conn, msg, env)
	if err != nil && reused && isStale(err) {
		// The pooled connection went stale while idle; nothing was sent on it.
		_ = conn.Close()
		if conn, err = s.dial(ctx); err != nil {
			return err
		}
		delivered, err = s.sendOn(conn, msg, env)
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

// envelope is the SMTP envelope of a message: MAIL FROM and RCPT TO.
type envelope struct {
	from string
	to   []string
}

func envelopeOf(msg *mail.Msg) (envelope, error) {
	from, err := msg.GetSender(false)
	if err != nil {
		return envelope{}, err
	}
	to, err := msg.GetRecipients()
	if err != nil {
		return envelope{}, err
	}
	return envelope{from: from, to: to}, nil
}

// checkAfter is how long a pooled connection may rest before its next send
// checks it with a NOOP. One used within it goes straight to MAIL: were it
// dead after all, the MAIL fails before anything is sent and the send goes
// again on a new connection, as after a failed NOOP.
const checkAfter = time.Second

// sendOn runs one mail transaction on conn: MAIL, RCPT for each recipient,
// DATA and the body. It sends no RSET after it: the server's reply to the
// body ends the transaction (RFC 5321 4.1.1.4), and a connection is pooled
// again only after a transaction that succeeded. go-mail's own send would
// add a NOOP before and a RSET after, two round trips out of six. A server
// that offers PIPELINING (RFC 2920; Postfix, Exim and most relays do) gets
// MAIL, RCPT and DATA in one write: two round trips in all.
// delivered reports that the server took the email.
func (s *SMTP) sendOn(conn *pooledConn, msg *mail.Msg, env envelope) (delivered bool, err error) {
	// An idle connection's deadline has passed; renew it first.
	if err := conn.UpdateDeadline(s.timeout); err != nil {
		return false, &smtpStep{step: stepCheck, err: err}
	}
	if !conn.lastUsed.IsZero() && time.Since(conn.lastUsed) > checkAfter {
		if err := conn.Noop(); err != nil {
			return false, &smtpStep{step: stepCheck, err: err}
		}
	}
	start := startOneByOne
	if ok, _ := conn.Extension("PIPELINING"); ok {
		start = startPipelined
	}
	w, err := start(conn, env)
	if err != nil {
		return false, err
	}
	if _, err := msg.WriteTo(w); err != nil {
		return false, &smtpStep{step: stepData, err: err}
	}
	if err := w.Close(); err != nil {
		return false, &smtpStep{step: stepData, err: err}
	}
	conn.lastUsed = time.Now()
	return true, nil
}

// startOneByOne sends MAIL, each RCPT and DATA, each after the reply to the
// one before, and returns the writer of the body.
func startOneByOne(conn *pooledConn, env envelope) (io.WriteCloser, error) {
	if err := conn.Mail(env.from); err != nil {
		return nil, &smtpStep{step: stepMail, err: err}
	}
	for _, to := range env.to {
		if err := conn.Rcpt(to); err != nil {
			return nil, &smtpStep{step: stepRcpt, err: err}
		}
	}
	w, err := conn.Data()
	if err != nil {
		return nil, &smtpStep{step: stepData, err: err}
	}
	return w, nil
}

// startPipelined sends MAIL, each RCPT and DATA in one write, then reads
// their replies in order; every reply is read, so that the connection stays
// in step after a refusal, and the first refusal is the error. The
// commands are those go-mail's Mail and Rcpt send.
func startPipelined(conn *pooledConn, env envelope) (io.WriteCloser, error) {
	mailCmd := "MAIL FROM:" + env.from
	if ok, _ := conn.Extension("8BITMIME"); ok {
		mailCmd += " BODY=8BITMIME"
	}
	if ok, _ := conn.Extension("SMTPUTF8"); ok {
		mailCmd += " SMTPUTF8"
	}
	type command struct {
		line, step string
		expect     int // a reply code, or its first digits
	}
	cmds := []command{{mailCmd, stepMail, 250}}
	for _, to := range env.to {
		cmds = append(cmds, command{"RCPT TO:" + to, stepRcpt, 25})
	}
	cmds = append(cmds, command{"DATA", stepData, 354})
	for _, c := range cmds {
		if strings.ContainsAny(c.line, "\r\n") {
			return nil, &smtpStep{step: c.step, err: errors.New("smtp: A line must not contain CR or LF")}
		}
	}
	w := conn.Text.W
	for _, c := range cmds {
		w.WriteString(c.line)
		w.WriteString("\r\n")
	}
	if err := w.Flush(); err != nil {
		return nil, &smtpStep{step: stepMail, err: err}
	}
	var refused error
	dataTaken := false
	for _, c := range cmds {
		_, _, err := conn.Text.ReadResponse(c.expect)
		if err == nil {
			dataTaken = c.step == stepData
			continue
		}
		if replyCode(err) == 0 { // no reply: the connection is gone
			if refused != nil {
				return nil, refused
			}
			return nil, &smtpStep{step: c.step, err: err}
		}
		if refused == nil {
			refused = &smtpStep{step: c.step, err: err}
		}
	}
	if refused != nil {
		if dataTaken {
			// A server that took DATA although it refused the sender or a
			// recipient now waits for a body that must not go: closing the
			// connection drops the transaction.
			_ = conn.Close()
		}
		return nil, refused
	}
	return &bodyWriter{WriteCloser: conn.Text.DotWriter(), text: conn.Text}, nil
}

// bodyWriter writes a pipelined transaction's body; Close ends it and reads
// the server's reply, as go-mail's DataCloser does.
type bodyWriter struct {
	io.WriteCloser
	text *textproto.Conn
}

func (b *bodyWriter) Close() error {
	if err := b.WriteCloser.Close(); err != nil {
		return err
	}
	_, _, err := b.text.ReadResponse(250)
	return err
}

// The steps of a mail transaction, for errors.
const (
	stepCheck = "connection check"
	stepMail  = "MAIL FROM"
	stepRcpt  = "RCPT TO"
	stepData  = "DATA"
)

// smtpStep is a failure of one step of a mail transaction.
type smtpStep struct {
	step string
	err  error
}

func (e *smtpStep) Error() string { return e.step + ": " + e.err.Error() }
func (e *smtpStep) Unwrap() error { return e.err }

// replyCode is the SMTP reply code of err, 0 when the server did not reply
// (a network error, a timeout).
func replyCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// isStale reports whether a send failed because its pooled connection went
// stale while idle: its check, or (a connection used within checkAfter,
// sent no NOOP) its MAIL, failed without a permanent reply. Nothing was
// sent on it.
func isStale(err error) bool {
	var se *smtpStep
	if !errors.As(err, &se) {
		return false
	}
	code := replyCode(se.err)
	return se.step == stepCheck || se.step == stepMail && (code < 500 || code >= 600)
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

// Package inbound is the SMTP listener of mail.inbound.addr: it takes the
// bounces and complaints sent back to the return paths of the bounce
// domain (bounces+TOKEN@<mail.bounce_domain>) and the complaint reports of
// feedback loops sent to its fixed address (fbl@<mail.bounce_domain>),
// refuses mail for any other address, reads each report with
// mailer/bounce and hands it to core's BounceService. It is a transport:
// what a report means is core's.
package inbound

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/bounce"
)

// Processor acts on one recipient's report (core.BounceService).
type Processor interface {
	Process(ctx context.Context, r core.BounceReport) (core.BounceOutcome, error)
}

// Config is the listener's settings.
type Config struct {
	Addr      string // host:port
	Addresses *core.BounceAddresses
	Processor Processor
	// MaxSize is the largest email taken, in bytes; 0: bounce.MaxSize.
	MaxSize int64
	// RatePerMinute is how many emails one client address may send a
	// minute; 0: 600.
	RatePerMinute int
	// Timeout bounds each read and write; 0: a minute.
	Timeout time.Duration
	// MaxConns bounds the connections at once; 0: 100.
	MaxConns int
	Logger   *slog.Logger
}

// Server is a running listener.
type Server struct {
	smtp  *smtp.Server
	cfg   Config
	log   *slog.Logger
	conns chan struct{}

	mu     sync.Mutex
	window time.Time
	counts map[string]int // client address -> emails in the current minute
}

// New makes the listener; Serve or ListenAndServe runs it.
func New(cfg Config) (*Server, error) {
	if cfg.Addresses == nil || cfg.Processor == nil {
		return nil, errors.New("inbound: a bounce domain (mail.bounce_domain) is required")
	}
	if cfg.MaxSize == 0 {
		cfg.MaxSize = bounce.MaxSize
	}
	if cfg.RatePerMinute == 0 {
		cfg.RatePerMinute = 600
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 100
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: log, conns: make(chan struct{}, cfg.MaxConns), counts: map[string]int{}}
	srv := smtp.NewServer(s)
	srv.Addr = cfg.Addr
	srv.Domain = cfg.Addresses.Domain
	srv.MaxMessageBytes = cfg.MaxSize
	srv.MaxRecipients = 10
	srv.ReadTimeout, srv.WriteTimeout = cfg.Timeout, cfg.Timeout
	srv.ErrorLog = errorLog{log}
	s.smtp = srv
	return s, nil
}

// Serve accepts connections on l until Close.
func (s *Server) Serve(l net.Listener) error { return s.smtp.Serve(flushListener{l}) }

// ListenAndServe listens on Config.Addr and serves until Close.
func (s *Server) ListenAndServe() error {
	addr := s.cfg.Addr
	if addr == "" {
		addr = ":smtp"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Close stops the listener and closes its connections.
func (s *Server) Close() error { return s.smtp.Close() }

// NewSession takes a connection while fewer than MaxConns are open.
func (s *Server) NewSession(c *smtp.Conn) (smtp.Session, error) {
	select {
	case s.conns <- struct{}{}:
	default:
		return nil, &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Too many connections, try again later"}
	}
	host, _, err := net.SplitHostPort(c.Conn().RemoteAddr().String())
	if err != nil {
		host = c.Conn().RemoteAddr().String()
	}
	return &session{s: s, client: host}, nil
}

// allow counts one email of client; false beyond RatePerMinute.
func (s *Server) allow(client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.Sub(s.window) >= time.Minute {
		s.window, s.counts = now, map[string]int{}
	}
	s.counts[client]++
	return s.counts[client] <= s.cfg.RatePerMinute
}

type session struct {
	s      *Server
	client string
	to     []string
}

var (
	errNoSuchUser = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
		Message: "No such user here: this server takes bounces for its return paths only"}
	errTooMany = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0},
		Message: "Too many emails from your address, try again later"}
	errTryLater = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message: "Temporary failure, try again later"}
)

func (se *session) Reset()        { se.to = nil }
func (se *session) Logout() error { <-se.s.conns; return nil }

func (se *session) Mail(string, *smtp.MailOptions) error {
	if !se.s.allow(se.client) {
		return errTooMany
	}
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !se.s.cfg.Addresses.IsBounceAddress(to) && !se.s.cfg.Addresses.IsFeedbackAddress(to) {
		return errNoSuchUser
	}
	se.to = append(se.to, to)
	return nil
}

// Data reads the report and hands it to core for each return path it was
// sent to. An email that is no report is taken and dropped (a bounce
// server that refused it would only bounce it back); a store that fails is
// a 451, so that the sender tries again.
func (se *session) Data(r io.Reader) error {
	body, err := io.ReadAll(io.LimitReader(r, se.s.cfg.MaxSize+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > se.s.cfg.MaxSize {
		return smtp.ErrDataTooLarge
	}
	rep, err := bounce.Parse(bytes.NewReader(body))
	if err != nil {
		se.s.log.Info("inbound: not a bounce report, dropped", "client", se.client)
		return nil
	}
	br, ok := Summarize(rep)
	if !ok {
		return nil
	}
	br.Source = "smtp"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var done []string
	for _, to := range se.to {
		paths := []string{strings.ToLower(to)}
		if se.s.cfg.Addresses.IsFeedbackAddress(to) {
			paths = feedbackPaths(se.s.cfg.Addresses, rep)
		}
		for _, p := range paths {
			if slices.Contains(done, p) {
				continue // one report to a return path and the loop's address counts once
			}
			done = append(done, p)
			br.ReturnPath = p
			if _, err := se.s.cfg.Processor.Process(ctx, br); err != nil {
				se.s.log.Warn("inbound: processing a report failed", "err", err)
				return errTryLater
			}
		}
	}
	return nil
}

// feedbackPaths are the return paths made here that a report sent to the
// feedback loop's fixed address quotes: only a complaint report (ARF) is
// read there, by its Original-Mail-From or its returned message's
// Return-Path (a DSN goes to the return path itself, never there); a
// report that quotes none of ours, or whose quoted message lost its
// Return-Path, is dropped.
func feedbackPaths(a *core.BounceAddresses, rep *bounce.Report) []string {
	if rep.Type != "feedback-report" {
		return nil
	}
	var out []string
	for _, p := range rep.ReturnPaths {
		if a.IsBounceAddress(p) {
			out = append(out, strings.ToLower(p))
		}
	}
	return out
}

// Summarize turns a parsed report into what core acts on. An email to a
// return path went to one recipient, so a report about several (a relay
// that expanded it) counts for the worst: a complaint, else a hard
// bounce, else a soft one. false: nothing to act on (a success notice, a
// delay warning).
func Summarize(rep *bounce.Report) (core.BounceReport, bool) {
	var best *bounce.Recipient
	rank := map[bounce.Kind]int{bounce.Soft: 1, bounce.Hard: 2, bounce.Complaint: 3}
	for i := range rep.Recipients {
		r := &rep.Recipients[i]
		if rank[r.Kind] > 0 && (best == nil || rank[r.Kind] > rank[best.Kind]) {
			best = r
		}
	}
	if best == nil {
		return core.BounceReport{}, false
	}
	out := core.BounceReport{Status: best.Status, Reason: best.Diagnostic}
	switch best.Kind {
	case bounce.Soft:
		out.Kind = core.BounceSoft
	case bounce.Hard:
		out.Kind = core.BounceHard
	case bounce.Complaint:
		out.Kind = core.BounceComplaint
		out.Reason = rep.FeedbackType
	}
	if out.Reason == "" && best.Status != "" {
		out.Reason = "Status " + best.Status
	}
	return out, true
}

type errorLog struct{ log *slog.Logger }

func (l errorLog) Printf(format string, v ...any) {
	l.log.Debug("inbound smtp", "detail", format, "args", v)
}
func (l errorLog) Println(v ...any) { l.log.Debug("inbound smtp", "args", v) }

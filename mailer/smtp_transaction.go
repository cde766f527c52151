package mailer

import (
	"errors"
	"io"
	"net/textproto"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
)

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
func (s *SMTP) sendOn(conn *pooledConn, msg io.WriterTo, env envelope) (delivered bool, err error) {
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

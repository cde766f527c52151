// Package mailer holds the transports of core.Mailer (SMTP through go-mail,
// and a file outbox for the zero-config default) and the email templates
// (core.Emails). Both transports render a message with the same code, so what
// the outbox writes is byte for byte what SMTP would send.
package mailer

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/wneessen/go-mail"
)

// reservedHeaders are set from the fields of core.Email; Email.Headers may not
// override them.
var reservedHeaders = map[string]bool{
	"from": true, "sender": true, "to": true, "cc": true, "bcc": true, "reply-to": true,
	"subject": true, "date": true, "message-id": true, "mime-version": true,
	"content-type": true, "content-transfer-encoding": true, "return-path": true,
}

// stamp fills the Date and Message-ID of e when the caller left them empty, so
// the caller sees what was sent. A Message-ID given with angle brackets loses
// them: the header gets exactly one pair.
func stamp(e *core.Email, from core.Address) error {
	if e.Date.IsZero() {
		e.Date = time.Now()
	}
	e.MessageID = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(e.MessageID), "<"), ">")
	if e.MessageID == "" {
		id, err := newMessageID(from.Address)
		if err != nil {
			return err
		}
		e.MessageID = id
	}
	if strings.ContainsAny(e.MessageID, "<>\r\n\t ") || !strings.Contains(e.MessageID, "@") {
		return fmt.Errorf("mailer: invalid Message-ID %q", e.MessageID)
	}
	return nil
}

// newMessageID returns 160 random bits at the domain of the sender.
func newMessageID(fromAddress string) (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mailer: generate Message-ID: %w", err)
	}
	domain := "sendlater.local"
	if at := strings.LastIndexByte(fromAddress, '@'); at >= 0 && at < len(fromAddress)-1 {
		domain = oneLine(fromAddress[at+1:])
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])) + "@" + domain, nil
}

// buildMsg stamps e and renders it as a go-mail message. from is the
// configured sender, used when e.From is empty. Errors here are about the
// email itself, so they are permanent.
func buildMsg(e *core.Email, from core.Address) (*mail.Msg, error) {
	if e.From.Address != "" {
		from = e.From
	}
	if from.Address == "" {
		return nil, errors.New("mailer: no sender address configured")
	}
	if len(e.To) == 0 {
		return nil, errors.New("mailer: email has no recipient")
	}
	if e.Text == "" && e.HTML == "" {
		return nil, errors.New("mailer: email has no body")
	}
	if err := stamp(e, from); err != nil {
		return nil, err
	}

	m := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := m.FromFormat(oneLine(from.Name), oneLine(from.Address)); err != nil {
		return nil, fmt.Errorf("mailer: invalid sender address: %w", err)
	}
	for _, to := range e.To {
		if err := m.AddToFormat(oneLine(to.Name), oneLine(to.Address)); err != nil {
			return nil, fmt.Errorf("mailer: invalid recipient address: %w", err)
		}
	}
	if e.ReplyTo != nil {
		if err := m.ReplyToFormat(oneLine(e.ReplyTo.Name), oneLine(e.ReplyTo.Address)); err != nil {
			return nil, fmt.Errorf("mailer: invalid Reply-To address: %w", err)
		}
	}
	if e.ReturnPath != "" {
		if err := m.EnvelopeFrom(oneLine(e.ReturnPath)); err != nil {
			return nil, fmt.Errorf("mailer: invalid return path: %w", err)
		}
	}
	m.Subject(oneLine(e.Subject))
	m.SetDateWithValue(e.Date)
	m.SetMessageIDWithValue(e.MessageID)
	for name, value := range e.Headers {
		if !validHeaderName(name) || reservedHeaders[strings.ToLower(name)] {
			return nil, fmt.Errorf("mailer: header %q may not be set", name)
		}
		m.SetGenHeader(mail.Header(name), oneLine(value))
	}

	switch {
	case e.Text != "" && e.HTML != "":
		m.SetBodyString(mail.TypeTextPlain, e.Text)
		m.AddAlternativeString(mail.TypeTextHTML, e.HTML)
	case e.Text != "":
		m.SetBodyString(mail.TypeTextPlain, e.Text)
	default:
		m.SetBodyString(mail.TypeTextHTML, e.HTML)
	}
	for _, a := range e.Attachments {
		typ := a.Type
		if typ == "" {
			typ = "application/octet-stream"
		}
		err := m.AttachReader(oneLine(a.Name), bytes.NewReader(a.Data), mail.WithFileContentType(mail.ContentType(typ)))
		if err != nil {
			return nil, fmt.Errorf("mailer: attach a file: %w", err)
		}
	}
	return m, nil
}

// oneLine makes s safe inside a header: CR and LF would start a new header.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ").Replace(s)), " ")
}

// validHeaderName reports whether name is an RFC 5322 field name.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 127 || c == ':' {
			return false
		}
	}
	return true
}

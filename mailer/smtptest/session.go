package smtptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"strings"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

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
	var data []byte
	var err error
	if se.server.discard {
		_, err = io.Copy(io.Discard, r)
	} else {
		data, err = io.ReadAll(r)
	}
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
	if se.server.discard {
		se.server.record(Message{})
		return nil
	}
	m := Message{From: se.from, To: append([]string(nil), se.to...), Data: data}
	if se.server.dkimLookup != nil {
		if m.DKIM, err = verifyDKIM(data, se.server.dkimLookup); err != nil {
			return err
		}
	}
	if parsed, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		m.Header = parsed.Header
	}
	se.server.record(m)
	return nil
}

func (se *session) Reset() { se.from, se.to = "", nil }

func (se *session) Logout() error { return nil }

// verifyDKIM checks every DKIM signature of data; it returns the domains
// that signed, or the SMTP error that refuses an email without a valid
// signature.
func verifyDKIM(data []byte, lookup func(string) ([]string, error)) ([]string, error) {
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(data), &dkim.VerifyOptions{LookupTXT: lookup})
	if err == nil && len(vs) == 0 {
		err = errors.New("no DKIM signature")
	}
	var domains []string
	for _, v := range vs {
		if err == nil && v.Err != nil {
			err = fmt.Errorf("the signature of %s does not verify: %w", v.Domain, v.Err)
		}
		domains = append(domains, v.Domain)
	}
	if err != nil {
		return nil, &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 20}, Message: "DKIM: " + err.Error()}
	}
	return domains, nil
}

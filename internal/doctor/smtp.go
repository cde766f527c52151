package doctor

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/smtp"
	"strconv"
	"time"

	"github.com/sendlater/sendlater/mailer"
)

// SMTP is the server of mail.smtp.*.
type SMTP struct {
	Host     string // "": outbox mode
	Port     int
	TLS      string // mailer.TLSNone, TLSStartTLS or TLSImplicit
	Username string
	Password string
	Timeout  time.Duration
	// TLSConfig overrides the TLS settings (tests against a self-signed
	// server); nil: the system's roots, the host's name.
	TLSConfig *tls.Config
}

// check connects, says EHLO, starts TLS and authenticates as the
// transport would, one check each; it stops at the first that fails.
func (c SMTP) check(s *Section) {
	const connect, ehlo, starttls, auth = "SMTP connect", "SMTP EHLO", "SMTP TLS", "SMTP AUTH"
	if c.Host == "" {
		s.fail("SMTP", "mail.smtp.host is not set: emails are written to the outbox folder and none leaves",
			"set mail.smtp.host, mail.smtp.port, mail.smtp.username and mail.smtp.password_file to your provider's")
		return
	}
	addr := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	tlsConfig := &tls.Config{ServerName: c.Host, MinVersion: tls.VersionTLS12}
	if c.TLSConfig != nil {
		tlsConfig = c.TLSConfig.Clone()
		if tlsConfig.ServerName == "" {
			tlsConfig.ServerName = c.Host
		}
	}
	dialer := &net.Dialer{Timeout: timeout}
	var conn net.Conn
	var err error
	if c.TLS == mailer.TLSImplicit {
		conn, err = tls.DialWithDialer(dialer, "tcp", addr, tlsConfig)
	} else {
		conn, err = dialer.Dial("tcp", addr)
	}
	if err != nil {
		s.fail(connect, fmt.Sprintf("cannot connect to %s: %v", addr, err),
			"check mail.smtp.host and mail.smtp.port (587 for starttls, 465 for tls), and that this machine may connect out to it")
		return
	}
	conn.SetDeadline(time.Now().Add(timeout))
	client, err := smtp.NewClient(conn, c.Host)
	if err != nil {
		conn.Close()
		s.fail(connect, fmt.Sprintf("%s did not greet as an SMTP server: %v", addr, err), "check mail.smtp.port and mail.smtp.tls")
		return
	}
	defer client.Close()
	s.pass(connect, "connected to "+addr)
	if err := client.Hello("localhost"); err != nil {
		s.fail(ehlo, "the server refused EHLO: "+err.Error(), "ask your provider why it refuses this machine")
		return
	}
	s.pass(ehlo, "the server answered EHLO")
	switch c.TLS {
	case mailer.TLSImplicit:
		s.pass(starttls, "TLS from the first byte, the certificate valid for "+c.Host)
	case mailer.TLSNone:
		if ip := net.ParseIP(c.Host); !(c.Host == "localhost" || ip != nil && ip.IsLoopback()) {
			s.fail(starttls, "mail.smtp.tls is none: emails and the password cross the network in clear",
				"set mail.smtp.tls: starttls (port 587) or tls (port 465)")
			return
		}
		s.pass(starttls, "plain text to a relay on this machine (mail.smtp.tls none)")
	default:
		if ok, _ := client.Extension("STARTTLS"); !ok {
			s.fail(starttls, "the server does not offer STARTTLS", "use mail.smtp.tls: tls with port 465, or a server that offers STARTTLS on 587")
			return
		}
		if err := client.StartTLS(tlsConfig); err != nil {
			s.fail(starttls, "STARTTLS failed: "+err.Error(), "the server's certificate must be valid for "+c.Host+" (set mail.smtp.host to the name on it)")
			return
		}
		s.pass(starttls, "STARTTLS, the certificate valid for "+c.Host)
	}
	if c.Username == "" {
		s.pass(auth, "none configured (the server relays for this machine without it)")
		return
	}
	if ok, _ := client.Extension("AUTH"); !ok {
		s.fail(auth, "the server offers no AUTH on this connection", "check mail.smtp.tls and mail.smtp.port, or leave mail.smtp.username empty for a relay that needs none")
		return
	}
	if err := client.Auth(smtp.PlainAuth("", c.Username, c.Password, c.Host)); err != nil {
		s.fail(auth, "the server refused the login of "+c.Username+": "+err.Error(), "check mail.smtp.username and mail.smtp.password (or password_file)")
		return
	}
	s.pass(auth, "signed in as "+c.Username)
	client.Quit()
}

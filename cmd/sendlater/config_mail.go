package main

import (
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/mailer"
)

// MailConfig is the mail.* keys: the sender, the SMTP server (none: the
// file outbox), the resolver of the recipient domain check, DKIM signing.
type MailConfig struct {
	From                 string `mapstructure:"from"`
	AllowLocalRecipients bool   `mapstructure:"allow_local_recipients"`
	SMTP                 struct {
		Host         string        `mapstructure:"host"`
		Port         int           `mapstructure:"port"`
		Username     string        `mapstructure:"username"`
		Password     string        `mapstructure:"password" secret:"true"`
		PasswordFile string        `mapstructure:"password_file"`
		TLS          string        `mapstructure:"tls"`
		Timeout      time.Duration `mapstructure:"timeout"`
		PoolSize     int           `mapstructure:"pool_size"`
	} `mapstructure:"smtp"`
	// DNSServer is the resolver that looks up recipients' domains: ""
	// the system's, "off" no lookup, else host or host:port.
	DNSServer string `mapstructure:"dns_server"`
	// BounceDomain is the domain of the return paths (VERP): each email to
	// a recipient is sent with MAIL FROM bounces+TOKEN@ it; "": none.
	BounceDomain string `mapstructure:"bounce_domain"`
	// Inbound is the SMTP listener that takes the bounces and complaints
	// sent to the bounce domain.
	Inbound struct {
		Addr       string        `mapstructure:"addr"`
		MaxSize    int64         `mapstructure:"max_size"`
		RatePerMin int           `mapstructure:"rate_per_minute"`
		Timeout    time.Duration `mapstructure:"timeout"`
	} `mapstructure:"inbound"`
	// SES takes bounces and complaints from Amazon SES through SNS at
	// POST /api/webhooks/ses: the topics whose messages are taken; none:
	// off.
	SES struct {
		TopicARN []string `mapstructure:"topic_arn"`
	} `mapstructure:"ses"`
	// Postmark takes bounces and spam complaints from Postmark's webhook
	// at POST /api/webhooks/postmark, behind these basic auth credentials;
	// no password: off.
	Postmark struct {
		WebhookUser         string `mapstructure:"webhook_user"`
		WebhookPassword     string `mapstructure:"webhook_password" secret:"true"`
		WebhookPasswordFile string `mapstructure:"webhook_password_file"`
	} `mapstructure:"postmark"`
	// DKIM signs every email the SMTP transport sends, when all three
	// are set.
	DKIM struct {
		Domain         string `mapstructure:"domain"`
		Selector       string `mapstructure:"selector"`
		PrivateKeyFile string `mapstructure:"private_key_file"`
	} `mapstructure:"dkim"`
}

// dnsOff is the mail.dns_server that switches the recipient domain check
// off.
const dnsOff = "off"

// mailDefaults are the defaults of the mail.* keys.
func mailDefaults() map[string]any {
	return map[string]any{
		"mail.from":                           "Sendlater <no-reply@localhost>",
		"mail.allow_local_recipients":         false,
		"mail.smtp.host":                      "",
		"mail.smtp.port":                      587,
		"mail.smtp.username":                  "",
		"mail.smtp.password":                  "",
		"mail.smtp.password_file":             "",
		"mail.smtp.tls":                       "starttls",
		"mail.smtp.timeout":                   "30s",
		"mail.smtp.pool_size":                 4,
		"mail.dns_server":                     "",
		"mail.bounce_domain":                  "",
		"mail.inbound.addr":                   "",
		"mail.inbound.max_size":               int64(1 << 20),
		"mail.inbound.rate_per_minute":        600,
		"mail.inbound.timeout":                "60s",
		"mail.ses.topic_arn":                  []string{},
		"mail.postmark.webhook_user":          "",
		"mail.postmark.webhook_password":      "",
		"mail.postmark.webhook_password_file": "",
		"mail.dkim.domain":                    "",
		"mail.dkim.selector":                  "",
		"mail.dkim.private_key_file":          "",
	}
}

// validateMail checks the mail.* keys.
func (c *Config) validateMail(bad func(key, rule string, got any) error) error {
	m := &c.Mail
	if _, err := mail.ParseAddress(m.From); err != nil {
		return bad("mail.from", "must be an email address, e.g. Sendlater <no-reply@example.com>", m.From)
	}
	if !slices.Contains([]string{"none", "starttls", "tls"}, m.SMTP.TLS) {
		return bad("mail.smtp.tls", "must be one of none, starttls, tls", m.SMTP.TLS)
	}
	if m.SMTP.Port < 1 || m.SMTP.Port > 65535 {
		return bad("mail.smtp.port", "must be between 1 and 65535", m.SMTP.Port)
	}
	if m.SMTP.Timeout <= 0 {
		return bad("mail.smtp.timeout", "must be a positive duration, e.g. 30s", m.SMTP.Timeout)
	}
	if m.SMTP.PoolSize < 1 || m.SMTP.PoolSize > 64 {
		return bad("mail.smtp.pool_size", "must be between 1 and 64", m.SMTP.PoolSize)
	}
	if m.DNSServer != dnsOff {
		if _, err := dnscheck.NewResolver(m.DNSServer, 0); err != nil {
			return bad("mail.dns_server", `must be empty (the system's resolver), off, or a resolver's host or host:port, e.g. 1.1.1.1 or 127.0.0.1:5353`, m.DNSServer)
		}
	}
	if m.BounceDomain != "" && (!dnsName.MatchString(m.BounceDomain) || !strings.Contains(m.BounceDomain, ".")) {
		return bad("mail.bounce_domain", "must be a domain name whose MX points at mail.inbound.addr, e.g. bounces.example.com", m.BounceDomain)
	}
	if m.Inbound.Addr != "" && m.BounceDomain == "" {
		return bad("mail.inbound.addr", "needs mail.bounce_domain: the listener takes mail for bounces+...@ that domain only", m.Inbound.Addr)
	}
	if m.Inbound.MaxSize < 4096 || m.Inbound.MaxSize > 32<<20 {
		return bad("mail.inbound.max_size", "must be between 4096 and 33554432 bytes", m.Inbound.MaxSize)
	}
	if m.Inbound.RatePerMin < 1 {
		return bad("mail.inbound.rate_per_minute", "must be at least 1", m.Inbound.RatePerMin)
	}
	if m.Inbound.Timeout <= 0 {
		return bad("mail.inbound.timeout", "must be a positive duration, e.g. 60s", m.Inbound.Timeout)
	}
	if err := c.validateWebhooks(bad); err != nil {
		return err
	}
	return c.validateDKIM(bad)
}

// snsTopicARN is an SNS topic's ARN: arn:aws:sns:REGION:ACCOUNT:NAME (or
// another partition's, aws-cn, aws-us-gov).
var snsTopicARN = regexp.MustCompile(`^arn:aws(-[a-z]+)*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$`)

// validateWebhooks checks mail.ses.* and mail.postmark.*: both need the
// bounce domain, whose return paths name what bounced.
func (c *Config) validateWebhooks(bad func(key, rule string, got any) error) error {
	m := &c.Mail
	for _, arn := range m.SES.TopicARN {
		if !snsTopicARN.MatchString(arn) {
			return bad("mail.ses.topic_arn", "must be SNS topic ARNs, e.g. arn:aws:sns:eu-west-1:123456789012:sendlater-bounces", arn)
		}
	}
	if len(m.SES.TopicARN) > 0 && m.BounceDomain == "" {
		return bad("mail.ses.topic_arn", "needs mail.bounce_domain: SES reports name the email by its return path bounces+...@ that domain", m.SES.TopicARN)
	}
	p := m.Postmark
	if p.WebhookPassword != "" || p.WebhookUser != "" {
		if m.BounceDomain == "" {
			return bad("mail.postmark.webhook_password", "needs mail.bounce_domain: Postmark reports name the email by its return path's token", "(set)")
		}
		if p.WebhookUser == "" || strings.ContainsAny(p.WebhookUser, ":@/ ") {
			return bad("mail.postmark.webhook_user", "must be set with webhook_password, without : @ / or spaces", p.WebhookUser)
		}
		if len(p.WebhookPassword) < 16 {
			return bad("mail.postmark.webhook_password", "must be at least 16 characters (e.g. openssl rand -hex 16)", "(hidden)")
		}
	}
	return nil
}

// dnsName is a DNS name of letters, digits and inner hyphens in dotted
// labels (A-labels for an internationalized one).
var dnsName = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// validateDKIM checks the mail.dkim.* keys: none set, or all three, with a
// domain and a selector that are DNS names. The key file is read when the
// mailer is made (newMailer).
func (c *Config) validateDKIM(bad func(key, rule string, got any) error) error {
	d := c.Mail.DKIM
	if d.Domain == "" && d.Selector == "" && d.PrivateKeyFile == "" {
		return nil
	}
	for key, v := range map[string]string{"mail.dkim.domain": d.Domain, "mail.dkim.selector": d.Selector, "mail.dkim.private_key_file": d.PrivateKeyFile} {
		if v == "" {
			return bad(key, "must be set with the other mail.dkim keys (domain, selector, private_key_file), or none of them", v)
		}
	}
	if !dnsName.MatchString(d.Domain) || !strings.Contains(d.Domain, ".") {
		return bad("mail.dkim.domain", "must be the domain of mail.from's address or a parent of it, e.g. example.com", d.Domain)
	}
	if !dnsName.MatchString(d.Selector) {
		return bad("mail.dkim.selector", "must be a DNS label such as sendlater or s2026", d.Selector)
	}
	return nil
}

// dkim is the signer of the mail.dkim keys, nil when they are not set.
func (c *Config) dkim() (*mailer.DKIM, error) {
	d := c.Mail.DKIM
	if d.PrivateKeyFile == "" {
		return nil, nil
	}
	key, err := mailer.LoadDKIMKey(d.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("config: mail.dkim.private_key_file: %w", err)
	}
	return &mailer.DKIM{Domain: strings.ToLower(d.Domain), Selector: d.Selector, Key: key}, nil
}

// mailDomains is the recipient domain check of mail.dns_server; nil when
// it is off.
func (c *Config) mailDomains() (core.MailDomains, error) {
	if c.Mail.DNSServer == dnsOff {
		return nil, nil
	}
	return dnscheck.New(dnscheck.Config{Server: c.Mail.DNSServer})
}

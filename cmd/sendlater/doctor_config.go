package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/doctor"
	"github.com/sendlater/sendlater/store/seal"
)

// doctorConfig reports the configuration as loadForDoctor read it: the
// file, unknown keys, the values, the secrets the configured features
// need, and the modes of the secret files and the data directory.
func (a *app) doctorConfig(ctx context.Context) (doctor.Section, error) {
	l := a.doctorLoad
	file := a.v.ConfigFileUsed()
	s := doctor.Section{Name: "config", Title: "Configuration: no config file (defaults and SENDLATER_* variables)"}
	if file != "" {
		s.Title = "Configuration: " + file
	}
	if l.err != nil && strings.HasPrefix(l.err.Error(), "config file ") {
		s.Fail("config file", l.err.Error(), "correct the file where the error says (YAML: indent with spaces); config.example.yaml shows every key")
		return s, nil
	}
	if file != "" {
		s.Pass("config file", file+" reads")
	}
	for _, err := range l.unknown {
		s.Fail("unknown key", strings.TrimPrefix(err.Error(), "config: "),
			"rename it as suggested, or delete it: until then its default applies and the value given is ignored")
	}
	if len(l.unknown) == 0 {
		s.Pass("unknown keys", "none: every key of the file and every SENDLATER_ variable is a setting")
	}
	if l.err != nil {
		s.Fail("values", strings.TrimPrefix(l.err.Error(), "config: "), "correct it as said; `sendlater config` shows the effective values once they load")
		return s, nil
	}
	s.Pass("values", "every value is valid")
	c := l.cfg
	a.doctorSecrets(&s, c)
	a.doctorKeyFile(&s, c)
	for _, f := range c.secretFiles() {
		s.CheckPrivateFile("secret file", f[0], f[1])
	}
	if _, err := os.Stat(c.DataDir); errors.Is(err, os.ErrNotExist) {
		s.Skip("data directory", c.DataDir+" does not exist yet: sendlater serve makes it (mode 0700) at its first start")
	} else {
		s.CheckPrivateDir("data directory", c.DataDir)
	}
	return s, nil
}

// doctorSecrets checks that each configured feature has its secrets.
// Stripe's and the sign-in providers' are refused by validate when missing;
// these are the ones a feature runs without, badly.
func (a *app) doctorSecrets(s *doctor.Section, c *Config) {
	var have []string
	ok := true
	if sm := c.Mail.SMTP; sm.Host != "" && sm.Username != "" {
		if sm.Password == "" {
			ok = false
			s.Fail("secrets", "mail.smtp.username is set but no password: the SMTP server will refuse the login",
				"put the password in a file (mode 0600) and set mail.smtp.password_file to it")
		} else {
			have = append(have, "the SMTP password")
		}
	}
	if c.Stripe.SecretKey != "" {
		have = append(have, "Stripe's secret key and webhook secret")
	}
	for _, p := range c.Auth.providers() {
		if p.cfg.ClientSecret != "" {
			have = append(have, core.ProviderName(p.id)+"'s client secret")
		}
	}
	if m := c.Metrics; m.Addr != "" {
		host, _, _ := net.SplitHostPort(m.Addr)
		ip := net.ParseIP(host)
		switch {
		case m.Token != "" || m.Password != "":
			have = append(have, "the metrics credentials")
		case host != "localhost" && (ip == nil || !ip.IsLoopback()):
			ok = false
			s.Fail("secrets", "metrics.addr "+m.Addr+" is not a loopback address and has no credentials: anyone who reaches it may scrape",
				"set metrics.token_file (a file holding 16+ random characters, mode 0600), or listen on 127.0.0.1")
		}
	}
	if !ok {
		return
	}
	if len(have) == 0 {
		s.Pass("secrets", "no configured feature needs one (SMTP without a login, no payments, no social sign-in)")
		return
	}
	s.Pass("secrets", "set: "+strings.Join(have, ", "))
}

// doctorKeyFile checks the encryption key: given in the configuration, or
// in a file only its owner reads. A missing file is a problem where nothing
// will create it: a shared store, or a bbolt store that exists.
func (a *app) doctorKeyFile(s *doctor.Section, c *Config) {
	const check = "encryption key"
	if c.EncryptionKey != "" {
		s.Pass(check, "given by encryption_key (keep the file or variable that sets it private)")
		return
	}
	file := c.EncryptionKeyFile
	if file == "" {
		file = c.keyPath()
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		d := drivers[c.Store.Driver]
		switch {
		case d.shared:
			s.Fail(check, "there is no key at "+file+": with store.driver "+c.Store.Driver+" every process needs the key the store was made with",
				"copy the first server's key file to "+file+" (chmod 600), or set encryption_key_file to where it is")
		case d.missing != nil && !d.missing(d.where(c)):
			s.Fail(check, "there is no key at "+file+", and the store "+d.where(c).value+" is sealed with one",
				"restore the key file from your backups to "+file+" (chmod 600), or set encryption_key_file to where it is")
		default:
			s.Skip(check, "no key at "+file+" yet: sendlater serve makes it (mode 0600) with the store")
		}
		return
	}
	s.CheckPrivateFile(check, "encryption_key_file", file)
	if b, err := os.ReadFile(file); err == nil {
		if _, err := seal.ParseKey(string(b)); err != nil {
			s.Fail(check, file+" holds no valid key: "+core.ErrorMessageOrText(err), "restore the key file from your backups")
		}
	}
}

// doctorKey is the encryption key as the store would get it, without
// creating one: nil when there is none.
func (a *app) doctorKey() []byte {
	if a.cfg.EncryptionKey != "" {
		key, _ := seal.ParseKey(a.cfg.EncryptionKey)
		return key
	}
	file := a.cfg.EncryptionKeyFile
	if file == "" {
		file = a.cfg.keyPath()
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	key, _ := seal.ParseKey(string(b))
	return key
}

// secretFiles are the set *_file settings holding a secret, and the DKIM
// key: setting, path.
func (c *Config) secretFiles() [][2]string {
	var out [][2]string
	add := func(key, path string) {
		if path != "" {
			out = append(out, [2]string{key, path})
		}
	}
	add("mail.smtp.password_file", c.Mail.SMTP.PasswordFile)
	add("mail.postmark.webhook_password_file", c.Mail.Postmark.WebhookPasswordFile)
	add("mail.dkim.private_key_file", c.Mail.DKIM.PrivateKeyFile)
	add("store.url_file", c.Store.URLFile)
	add("stripe.secret_key_file", c.Stripe.SecretKeyFile)
	add("stripe.webhook_secret_file", c.Stripe.WebhookSecretFile)
	add("metrics.token_file", c.Metrics.TokenFile)
	add("metrics.password_file", c.Metrics.PasswordFile)
	for _, p := range c.Auth.providers() {
		add(fmt.Sprintf("auth.providers.%s.client_secret_file", p.id), p.cfg.ClientSecretFile)
	}
	return out
}

package main

import (
	"fmt"
	"io"
	"net/mail"
	"os"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/web"
)

// encryptionKey returns the key from config, else from the key file (created
// on first start with mode 0600).
func (a *app) encryptionKey() ([]byte, error) {
	if a.cfg.EncryptionKey != "" {
		key, err := bolt.ParseKey(a.cfg.EncryptionKey)
		if err != nil {
			return nil, fmt.Errorf("config: encryption_key: %s", core.ErrorMessageOrText(err))
		}
		return key, nil
	}
	file := a.cfg.EncryptionKeyFile
	if file == "" {
		file = a.cfg.keyPath()
	}
	key, err := bolt.LoadOrCreateKey(file)
	if err != nil {
		return nil, fmt.Errorf("config: encryption_key_file: %s", core.ErrorMessageOrText(err))
	}
	return key, nil
}

// openStore opens the bbolt file in the data directory. It returns the
// encryption key too, from which the other keys are derived.
func (a *app) openStore() (*bolt.DB, []byte, error) {
	if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data_dir: %w", err)
	}
	key, err := a.encryptionKey()
	if err != nil {
		return nil, nil, err
	}
	db, err := bolt.Open(a.cfg.storePath(), bolt.Options{Key: key, Reminders: a.cfg.Scheduler.Reminders})
	if err != nil {
		return nil, nil, err
	}
	return db, key, nil
}

// adminService returns the operator's view of the store: through the running
// server's admin socket when one answers, else over the store opened
// directly. The returned func releases what was opened.
func (a *app) adminService() (core.Admin, func() error, error) {
	if c, err := web.DialAdmin(a.cfg.socketPath()); err == nil {
		a.sayf("using the running server through its admin socket %s", a.cfg.socketPath())
		return c, func() error { return nil }, nil
	}
	db, key, err := a.openStore()
	if err != nil {
		return nil, nil, err
	}
	a.sayf("no server answers on %s: opened the store %s directly", a.cfg.socketPath(), a.cfg.storePath())
	d, closeDelivery, err := a.newDelivery(db, key, core.SystemClock{})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	done := func() error {
		closeDelivery()
		return db.Close()
	}
	return &core.AdminService{Users: db, Messages: db, Backuper: db, Prices: a.cfg.prices(), Clock: core.SystemClock{}, Delivery: d}, done, nil
}

// withAdmin makes a command's RunE from fn, which gets the operator's view
// of the store (adminService), released when fn returns.
func (a *app) withAdmin(fn func(cmd *cobra.Command, args []string, admin core.Admin) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		admin, done, err := a.adminService()
		if err != nil {
			return err
		}
		defer done()
		return fn(cmd, args, admin)
	}
}

// newMailer returns the SMTP transport when a host is configured, else the
// file outbox in the data directory.
func (a *app) newMailer() (core.Mailer, error) {
	from, err := mail.ParseAddress(a.cfg.Mail.From)
	if err != nil {
		return nil, fmt.Errorf("config: mail.from: %w", err)
	}
	sender := core.Address{Name: from.Name, Address: from.Address}
	s := a.cfg.Mail.SMTP
	if s.Host == "" {
		return mailer.NewOutbox(a.cfg.outboxDir(), sender, a.log)
	}
	return mailer.NewSMTP(mailer.SMTPConfig{
		Host: s.Host, Port: s.Port, Username: s.Username, Password: s.Password, TLS: s.TLS,
		From: sender, Timeout: s.Timeout, PoolSize: s.PoolSize,
	})
}

// mailing returns the mailer and the email templates; closeMail releases the
// SMTP connections.
func (a *app) mailing() (m core.Mailer, emails core.Emails, closeMail func(), err error) {
	m, err = a.newMailer()
	if err != nil {
		return nil, nil, nil, err
	}
	closeMail = func() {
		if c, ok := m.(io.Closer); ok {
			c.Close()
		}
	}
	emails, err = mailer.NewTemplates(a.cfg.AppName, a.cfg.BaseURL)
	if err != nil {
		closeMail()
		return nil, nil, nil, err
	}
	return m, emails, closeMail, nil
}

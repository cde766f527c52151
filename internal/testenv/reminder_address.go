package testenv

import (
	"net/url"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// ConfirmReminderAddress takes the next email, which must ask addr to
// confirm that it wants the reminders, and follows its link as the web
// app's page does; it returns the email.
func (e *Env) ConfirmReminderAddress(tb testing.TB, addr string) *smtptest.Parsed {
	tb.Helper()
	p, _ := e.Next(tb, addr)
	if _, err := e.Auth.ApplyActionCode(e.Ctx, ReminderAddressCode(tb, p)); err != nil {
		tb.Fatalf("following the confirmation link: %v", err)
	}
	return p
}

// ReminderAddressCode is the action code of the confirmation link in p.
func ReminderAddressCode(tb testing.TB, p *smtptest.Parsed) string {
	tb.Helper()
	for _, link := range p.Links() {
		u, err := url.Parse(link)
		if err == nil && u.Path == "/firebase-action" && u.Query().Get("mode") == core.ModeConfirmReminderAddress &&
			u.Query().Get("oobCode") != "" {
			return u.Query().Get("oobCode")
		}
	}
	tb.Fatalf("no confirmation link in %q:\n%s", p.Subject, p.Text)
	return ""
}

package core_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// These tests run the identity service over a real bbolt store, the real
// email templates and SMTP transport, and a test SMTP server; they read the
// emails back and follow their links.

const baseURL = testenv.DefaultBaseURL

// authEnv is the identity service over the test environment.
type authEnv struct{ *testenv.Env }

func MustAuthEnv(tb testing.TB) *authEnv {
	tb.Helper()
	return &authEnv{testenv.New(tb, testenv.Config{})}
}

var browser = core.Client{Address: "192.0.2.1", UserAgent: "test browser"}

// MustSignUp creates an account with a password and returns its tokens,
// taking the verification email.
func (e *authEnv) MustSignUp(tb testing.TB, email, password string) *core.Tokens {
	tb.Helper()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: email, Password: password, Name: "Ann"}, browser)
	if err != nil {
		tb.Fatalf("sign up %s: %v", email, err)
	}
	e.nextEmail(tb, email)
	return tok
}

func (e *authEnv) MustAuthenticate(tb testing.TB, bearer string) *core.Identity {
	tb.Helper()
	id, err := e.Auth.Authenticate(e.Ctx, bearer)
	if err != nil {
		tb.Fatalf("authenticate: %v", err)
	}
	return id
}

// nextEmail returns the next email received, which must go to to and have
// both a text and an HTML part.
func (e *authEnv) nextEmail(tb testing.TB, to string) *smtptest.Parsed {
	tb.Helper()
	p, _ := e.Next(tb, to)
	if p.Text == "" || p.HTML == "" {
		tb.Fatalf("email %q lacks a text or an HTML part", p.Subject)
	}
	return p
}

// actionCode returns the oobCode of the email's action link of mode, which
// must be in both parts.
func actionCode(tb testing.TB, p *smtptest.Parsed, mode string) string {
	tb.Helper()
	link := p.Link(baseURL + "/firebase-action?")
	if link == "" {
		tb.Fatalf("email %q has no action link: %v", p.Subject, p.Links())
	}
	if !strings.Contains(p.Text, link) {
		tb.Fatalf("the text part lacks the link %s", link)
	}
	u, err := url.Parse(link)
	if err != nil {
		tb.Fatal(err)
	}
	if got := u.Query().Get("mode"); got != mode {
		tb.Fatalf("link mode %q, want %q (%s)", got, mode, link)
	}
	code := u.Query().Get("oobCode")
	if len(code) < 22 { // 128 bits in base64
		tb.Fatalf("oobCode %q is too short", code)
	}
	return code
}

func wantCode(tb testing.TB, err error, code string) *core.Error {
	tb.Helper()
	if got := core.ErrorCode(err); got != code {
		tb.Fatalf("error %v, want code %q", err, code)
	}
	e, _ := core.AsError(err)
	return e
}

func wantFields(tb testing.TB, err error, fields map[string]string) {
	tb.Helper()
	e := wantCode(tb, err, core.EValidation)
	if len(e.Fields) != len(fields) {
		tb.Fatalf("fields %v, want %v", e.Fields, fields)
	}
	for k, v := range fields {
		if e.Fields[k] != v {
			tb.Fatalf("fields %v, want %v", e.Fields, fields)
		}
	}
}

const goodPassword = "a long and unusual passphrase"

package tui_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/tui"
	"github.com/sendlater/sendlater/web"
)

// The two implementations the app runs on: local (the services over a
// bbolt store, acting as an operator for the user, as `sendlater tui
// --user` does without a server) and remote (web.APIClient over the real
// server on a loopback port, with the user's personal access token).

type backend struct {
	name string
	open func(t *testing.T, e *testenv.Env, u *account) (tui.Config, *web.Server)
}

// account is a signed-up user (free plan) and a personal access token.
type account struct {
	id, token string
}

var backends = []backend{
	{"local", func(t *testing.T, e *testenv.Env, u *account) (tui.Config, *web.Server) {
		ctx := e.Acting(&core.Identity{UserID: u.id, Operator: "tui test"})
		return tui.Config{Messages: e.Messages, Account: e.Auth, Ctx: ctx, Emails: e.Emails, Where: "local store",
			Now: e.Clock.Now, Retry: 50 * time.Millisecond}, nil
	}},
	{"remote", func(t *testing.T, e *testenv.Env, u *account) (tui.Config, *web.Server) {
		srv := serve(t, e)
		c := web.NewAPIClient(srv.URL(), u.token, 2*time.Second)
		return tui.Config{Messages: c, Account: c, Ctx: context.Background(), Emails: e.Emails, Where: "remote",
			Now: e.Clock.Now, Retry: 50 * time.Millisecond}, srv
	}},
}

// newEnv is a test environment holding ann (free plan) with a token.
func newEnv(t *testing.T) (*testenv.Env, *account) {
	t.Helper()
	e := testenv.New(t, testenv.Config{})
	e.Messages.Recheck = time.Second
	toks, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: "a long enough passphrase 42", Name: "Ann Author", Timezone: "Europe/Berlin"}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Auth.Authenticate(e.Ctx, toks.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "tui test", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	return e, &account{id: id.UserID, token: pat}
}

// serve runs the public server over e on a loopback port, as cmd wires it.
func serve(t testing.TB, e *testenv.Env) *web.Server {
	t.Helper()
	srv := &web.Server{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: testenv.DefaultBaseURL, AppName: "Sendlater",
		Clock: e.Clock, Identities: e.Auth, Messages: e.Messages, Contact: e.Contact, Postpone: e.Postpone,
		Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social, Outbox: e.DB, Opens: e.Graph.Opens,
		StreamHeartbeat: time.Second, Attachments: e.Attachments,
	}
	if err := srv.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	return srv
}

package web_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// On the admin socket the author's routes act for the user the operator
// names, never for a bearer token; on TCP the act-as header is never
// honoured.
func TestSocketActsForTheNamedUserOnly(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	ann := e.MustUser(t, "ann@example.com", "", core.PlanStarter)
	if _, err := e.Messages.Create(e.As(ann.ID), core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	admin, path := serveTestSocket(t, e)
	ctx := context.Background()

	for _, who := range []string{"ann@example.com", "ANN@example.com", ann.ID} {
		page, err := admin.As(who).List(ctx, core.Page{})
		if err != nil || len(page.Messages) != 1 || page.Messages[0].Owner != ann.ID {
			t.Fatalf("as %s: %v %v", who, page, err)
		}
	}
	_, err := admin.As("nobody@example.com").List(ctx, core.Page{})
	wantErrorCode(t, err, core.EUserNotFound)
	_, err = admin.As("").List(ctx, core.Page{})
	wantErrorCode(t, err, core.EInvalidToken)

	// What only the user may do is refused to an operator.
	_, _, err = admin.As(ann.ID).CreateAccessToken(ctx, "for me", nil)
	wantErrorCode(t, err, core.EOperatorNotAllowed)
	wantErrorCode(t, admin.As(ann.ID).SignOut(ctx), core.EOperatorNotAllowed)
	email := "other@example.com"
	_, err = admin.As(ann.ID).UpdateProfile(ctx, core.ProfileUpdate{Email: &email})
	wantErrorCode(t, err, core.EOperatorNotAllowed)
	name := "Ann by the operator"
	if me, err := admin.As(ann.ID).UpdateProfile(ctx, core.ProfileUpdate{Name: &name}); err != nil || me.Name != name {
		t.Fatalf("rename: %+v %v", me, err)
	}

	// A bearer token is not accepted on the socket, even a valid one.
	bob, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "bob@example.com", Password: pw}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []map[string]string{
		{"Authorization": "Bearer " + bob.IDToken},
		{"Authorization": "Bearer " + bob.IDToken, web.ActAsHeader: "ann@example.com"},
	} {
		resp, env := overSocket(t, path, "GET", "/api/messages", h)
		if resp.StatusCode != http.StatusUnauthorized || env.Code != core.EInvalidToken {
			t.Fatalf("bearer on the socket %v: %d %+v", h, resp.StatusCode, env)
		}
	}
	url := startBare(t, newTestServer(e, slogDiscard()))

	// On TCP the header is ignored: the header alone is no sign-in, and
	// bob's token acts for bob.
	resp, env := requestWith(t, http.DefaultClient, "GET", url+"/api/messages", map[string]string{web.ActAsHeader: ann.ID})
	if resp.StatusCode != http.StatusUnauthorized || env.Code != core.EInvalidToken {
		t.Fatalf("act-as without a bearer on TCP: %d %+v", resp.StatusCode, env)
	}
	resp, env = requestWith(t, http.DefaultClient, "GET", url+"/api/messages", map[string]string{
		web.ActAsHeader: ann.ID, "Authorization": "Bearer " + bob.IDToken,
	})
	if resp.StatusCode != http.StatusOK || string(env.Data) != "[]" {
		t.Fatalf("bob's token with act-as ann on TCP: %d %s", resp.StatusCode, env.Data)
	}
}

func wantErrorCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := core.ErrorCode(err); got != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if e, _ := core.AsError(err); e.Message == "" {
		t.Fatalf("error %s without a message", code)
	}
}

// overSocket sends a request with headers to the admin socket at path.
func overSocket(t *testing.T, path, method, target string, header map[string]string) (*http.Response, envelope) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
	return requestWith(t, c, method, "http://sendlater"+target, header)
}

// requestWith sends a request without a body and with headers through c, and
// decodes the envelope of the reply.
func requestWith(t *testing.T, c *http.Client, method, url string, header map[string]string) (*http.Response, envelope) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	return resp, env
}

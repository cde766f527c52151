package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// The three implementations of core.Messages and core.Account: the services
// over the store (local), web.APIClient over the public API with a bearer
// token (remote), and the same client over the admin socket acting for the
// user (socket). One scenario through each must give the same results.

// frontDoor is one implementation, acting for ann, in an environment that
// holds ann (free plan) and bob with one message. Local and remote act with
// ann's personal access token, which the scenario's days do not expire.
type frontDoor struct {
	env      *testenv.Env
	messages core.Messages
	account  core.Account
	ctx      context.Context
	bobsID   string
}

var implementations = []struct {
	name string
	open func(t *testing.T, e *testenv.Env, token string) (core.Messages, core.Account, context.Context)
}{
	{"local", func(t *testing.T, e *testenv.Env, token string) (core.Messages, core.Account, context.Context) {
		id, err := e.Auth.Authenticate(e.Ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		return e.Messages, e.Auth, e.Acting(id)
	}},
	{"remote", func(t *testing.T, e *testenv.Env, token string) (core.Messages, core.Account, context.Context) {
		srv := newTestServer(e, slogDiscard())
		url := startBare(t, srv)
		c := web.NewAPIClient(url, token, 5*time.Second)
		return c, c, context.Background()
	}},
	{"socket", func(t *testing.T, e *testenv.Env, _ string) (core.Messages, core.Account, context.Context) {
		c := dialTestSocket(t, e).As("ann@example.com")
		return c, c, context.Background()
	}},
}

// dialTestSocket serves the admin socket over e and dials it.
func dialTestSocket(t *testing.T, e *testenv.Env) *web.AdminClient {
	t.Helper()
	c, _ := serveTestSocket(t, e)
	return c
}

// serveTestSocket serves the admin socket over e, dials it and returns the
// client and the socket's path.
func serveTestSocket(t *testing.T, e *testenv.Env) (*web.AdminClient, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	srv := &web.AdminServer{Admin: e.Admin, Messages: e.Operator.AuthorMessages(), Account: e.Operator.AuthorAccount(),
		Logger: slogDiscard(), StreamHeartbeat: testHeartbeat}
	if err := srv.Open(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	c, err := web.DialAdmin(path)
	if err != nil {
		t.Fatal(err)
	}
	return c, path
}

func openFrontDoor(t *testing.T, i int) *frontDoor {
	t.Helper()
	e := testenv.New(t, testenv.Config{})
	e.Messages.Recheck = testHeartbeat
	ann, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: pw, Name: "Ann"}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	bob := e.MustUser(t, "bob@example.com", "", core.PlanStarter)
	bobs, err := e.Messages.Create(e.As(bob.ID), core.MessageInput{Title: "Bob's", Name: "Cy", Recipient: "cy@example.com", Body: "not Ann's"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Auth.Authenticate(e.Ctx, ann.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "front door", core.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	ms, acc, ctx := implementations[i].open(t, e, pat)
	return &frontDoor{env: e, messages: ms, account: acc, ctx: ctx, bobsID: bobs.ID}
}

// transcript records what a scenario saw, in a form the three can share:
// messages as the API shows them, without their ids; errors as code,
// message and fields.
type transcript []string

func wireMessages(ms []*core.Message) []*web.MessageJSON {
	out := make([]*web.MessageJSON, len(ms))
	for i, m := range ms {
		out[i] = wireMessage(m)
	}
	return out
}

func (tr *transcript) add(what string, v any, err error) {
	if err != nil {
		e, _ := core.AsError(err)
		if e == nil {
			e = &core.Error{Code: "not an application error", Message: err.Error()}
		}
		*tr = append(*tr, fmt.Sprintf("%s: error %s %q %v", what, e.Code, e.Message, e.Fields))
		return
	}
	switch x := v.(type) {
	case *core.Message:
		v = wireMessage(x)
	case []*core.Message:
		v = wireMessages(x)
	case *core.MessagePage: // one page here: the list
		if x.NextCursor != "" {
			panic("the scenario's list has a second page")
		}
		v = wireMessages(x.Messages)
	}
	b, _ := json.Marshal(v)
	*tr = append(*tr, what+": "+string(b))
}

// wireMessage is m as the API shows it, with an id and owner that do not
// differ from one environment to the next.
func wireMessage(m *core.Message) *web.MessageJSON {
	j := web.NewMessageJSON(m)
	j.ID, j.Owner = "id", "owner"
	return j
}

// messagesScenario creates, fails a validation, postpones, lists, reaches for
// another user's message, follows and deletes.
func messagesScenario(t *testing.T, d *frontDoor) transcript {
	var tr transcript
	ctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	lists, err := d.messages.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := func(what string) {
		select {
		case l := <-lists:
			tr.add(what, l.Messages, l.Err)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no list within 5s", what)
		}
	}
	next("follow: first list")

	m, err := d.messages.Create(ctx, core.MessageInput{
		Title: "For my sister", Name: "Ann", Recipient: "ann@example.com", Body: "The key is under the blue pot.", Interval: core.Interval6M,
	})
	tr.add("create", m, err)
	if err != nil {
		t.Fatal(err)
	}
	next("follow: after create")
	_, err = d.messages.Create(ctx, core.MessageInput{Title: " ", Name: "Bo", Recipient: "bo at example", Body: "x"})
	tr.add("create invalid", nil, err)
	_, err = d.messages.Create(ctx, core.MessageInput{Title: "second", Name: "Bo", Recipient: "bo@example.com", Body: "x"})
	tr.add("create over the free plan's limit", nil, err)

	d.env.Clock.Add(48 * time.Hour)
	id := m.ID
	m, err = d.messages.Postpone(ctx, id)
	tr.add("postpone", m, err)
	if err != nil {
		t.Fatal(tr)
	}
	next("follow: after postpone")
	off := false
	got, err := d.messages.Update(ctx, id, core.MessageUpdate{IsActive: &off})
	tr.add("pause", got, err)
	next("follow: after pause")
	got, err = d.messages.Get(ctx, id)
	tr.add("get", got, err)
	all, err := d.messages.List(ctx, core.Page{})
	tr.add("list", all, err)

	_, err = d.messages.Get(ctx, d.bobsID)
	tr.add("get another user's message", nil, err)
	_, err = d.messages.Update(ctx, d.bobsID, core.MessageUpdate{IsActive: &off})
	tr.add("update another user's message", nil, err)
	tr.add("delete another user's message", nil, d.messages.Delete(ctx, d.bobsID))

	tr.add("delete", nil, d.messages.Delete(ctx, id))
	next("follow: after delete")
	all, err = d.messages.List(ctx, core.Page{})
	tr.add("list after delete", all, err)
	tr.add("delete again", nil, d.messages.Delete(ctx, id))
	return tr
}

func TestMessagesImplementationsAgree(t *testing.T) {
	var want transcript
	for i, impl := range implementations {
		got := messagesScenario(t, openFrontDoor(t, i))
		if i == 0 {
			want = got
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d steps, local %d", impl.name, len(got), len(want))
		}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("%s differs from local:\n  %s\n  %s", impl.name, got[j], want[j])
			}
		}
	}
	// What they agree on is what the API promises.
	for _, step := range []string{
		`create invalid: error request/validation "Please check the highlighted fields." map[recipient:Please enter a valid email address title:Please enter a title]`,
		`create over the free plan's limit: error plan/limit-reached "Upgrade your plan to add more messages." map[]`,
		`get another user's message: error message/not-found "The message could not be found." map[]`,
		`update another user's message: error message/not-found "The message could not be found." map[]`,
		`delete another user's message: error message/not-found "The message could not be found." map[]`,
		`list after delete: []`,
		`delete again: error message/not-found "The message could not be found." map[]`,
	} {
		if !slices.Contains(want, step) {
			t.Errorf("no step %s in\n%s", step, strings.Join(want, "\n"))
		}
	}
}

func accountScenario(t *testing.T, d *frontDoor) transcript {
	var tr transcript
	me, err := d.account.Me(d.ctx)
	tr.add("me", me, err)
	name := "Ann B."
	me, err = d.account.UpdateProfile(d.ctx, core.ProfileUpdate{Name: &name})
	tr.add("rename", me, err)
	blank := " "
	_, err = d.account.UpdateProfile(d.ctx, core.ProfileUpdate{Name: &blank})
	tr.add("blank name", nil, err)
	ts, err := d.account.ListAccessTokens(d.ctx)
	var names []string // ids differ, and the socket uses no token
	for _, t := range ts {
		names = append(names, fmt.Sprintf("%s made %s", t.Name, t.CreatedAt.Format(time.RFC3339)))
	}
	tr.add("tokens", names, err)
	return tr
}

func TestAccountImplementationsAgree(t *testing.T) {
	var want transcript
	for i, impl := range implementations {
		d := openFrontDoor(t, i)
		got := accountScenario(t, d)
		for j := range got {
			got[j] = stripUID(got[j], d)
		}
		if i == 0 {
			want = got
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s differs from local:\n%s\n%s", impl.name, got, want)
		}
	}
	if len(want) != 4 || want[3] != `tokens: ["front door made 2026-03-01T12:00:00Z"]` {
		t.Fatalf("transcript %q", want)
	}
}

// stripUID hides ann's id, which differs from one environment to the next.
func stripUID(s string, d *frontDoor) string {
	u, err := d.env.DB.FindUserByEmail(d.env.Ctx, "ann@example.com")
	if err != nil {
		return s
	}
	return strings.ReplaceAll(s, u.ID, "<uid>")
}

// A stored message's preview, through each implementation: written on its
// creation day (not today), with changes applied and not stored, refused
// for another user's message and for bad changes.
func previewScenario(t *testing.T, d *frontDoor) transcript {
	var tr transcript
	m, err := d.messages.Create(d.ctx, core.MessageInput{Title: "For my sister", Name: "Ann", Recipient: "ann@example.com", Body: "The key is under the blue pot."})
	if err != nil {
		t.Fatal(err)
	}
	d.env.Clock.Add(72 * time.Hour)
	ps, err := d.messages.PreviewMessage(d.ctx, m.ID, core.MessageUpdate{})
	tr.add("preview as stored", ps, err)
	body := "The key is with the neighbour."
	ps, err = d.messages.PreviewMessage(d.ctx, m.ID, core.MessageUpdate{Body: &body})
	tr.add("preview of a change", ps, err)
	got, err := d.messages.Get(d.ctx, m.ID)
	tr.add("the message after the previews", got, err)
	empty := ""
	_, err = d.messages.PreviewMessage(d.ctx, m.ID, core.MessageUpdate{Body: &empty})
	tr.add("preview of a bad change", nil, err)
	_, err = d.messages.PreviewMessage(d.ctx, d.bobsID, core.MessageUpdate{})
	tr.add("preview another user's message", nil, err)
	return tr
}

func TestPreviewMessageImplementationsAgree(t *testing.T) {
	var want transcript
	for i, impl := range implementations {
		got := previewScenario(t, openFrontDoor(t, i))
		if i == 0 {
			want = got
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s differs from local:\n%s\n%s", impl.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	written := "on Sunday, 1 March 2026 at 12:00 UTC." // its creation, three days before the previews
	for j, checks := range [][]string{{written, "The key is under the blue pot."}, {written, "The key is with the neighbour."},
		{`"message":"The key is under the blue pot."`}, {`map[message:Please enter a message]`},
		{`error message/not-found "The message could not be found."`}} {
		for _, check := range checks {
			if j >= len(want) || !strings.Contains(want[j], check) {
				t.Errorf("no %q in step %d of\n%s", check, j, strings.Join(want, "\n"))
			}
		}
	}
}

package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// nextList takes the next value of a Follow within d.
func nextList(t *testing.T, lists <-chan core.MessageList, d time.Duration) (core.MessageList, bool) {
	t.Helper()
	select {
	case l, ok := <-lists:
		return l, ok
	case <-time.After(d):
		t.Fatalf("nothing from Follow within %s", d)
		return core.MessageList{}, false
	}
}

// The remote Follow: signing out ends it with auth/invalid-user-token
// within one heartbeat, and a server that stops ends it with
// service/unavailable; the channel then closes.
func TestAPIClientFollowEnds(t *testing.T) {
	e := testenv.New(t, testenv.Config{Start: time.Now()})
	e.Messages.Recheck = testHeartbeat
	srv := newTestServer(e, slogDiscard())
	url := startBare(t, srv)
	ctx := context.Background()
	tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: pw}, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	ann := web.NewAPIClient(url, tok.IDToken, time.Second)
	lists, err := ann.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := nextList(t, lists, time.Second); l.Err != nil || len(l.Messages) != 0 {
		t.Fatalf("first list %+v", l)
	}
	if _, err := ann.Create(ctx, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	l, _ := nextList(t, lists, time.Second)
	if l.Err != nil || len(l.Messages) != 1 || l.Messages[0].Title != "t" {
		t.Fatalf("after create %+v", l)
	}
	// Every list carries the session user, as the stream last sent it.
	if l.User == nil || l.User.UID != tok.User.ID || l.User.CanAddMessage {
		t.Fatalf("the session user with the list: %+v", l.User)
	}
	if err := ann.SignOut(ctx); err != nil {
		t.Fatal(err)
	}
	l, _ = nextList(t, lists, 3*testHeartbeat)
	if core.ErrorCode(l.Err) != core.EInvalidToken {
		t.Fatalf("after sign-out: %+v", l)
	}
	if _, ok := nextList(t, lists, time.Second); ok {
		t.Fatal("the channel stayed open after the error")
	}
	_, err = ann.Follow(ctx)
	wantErrorCode(t, err, core.EInvalidToken)

	again, err := e.Auth.SignIn(e.Ctx, "ann@example.com", pw, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	lists, err = web.NewAPIClient(url, again.IDToken, time.Second).Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nextList(t, lists, time.Second)
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if l, _ := nextList(t, lists, time.Second); core.ErrorCode(l.Err) != core.EUnavailable {
		t.Fatalf("after the server stopped: %+v", l)
	}
}

// Through the socket the live list holds while the user exists; deleting
// the account ends it. Cancelling ctx ends a Follow without an error.
func TestSocketFollowEndsWhenTheUserGoes(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	e.Messages.Recheck = testHeartbeat
	ann := e.MustUser(t, "ann@example.com", "", core.PlanStarter)
	admin := dialTestSocket(t, e)
	lists, err := admin.As(ann.Email).Follow(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	nextList(t, lists, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	other, err := admin.As(ann.Email).Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nextList(t, other, time.Second)
	cancel()
	if l, ok := nextList(t, other, time.Second); ok {
		t.Fatalf("a cancelled Follow sent %+v", l)
	}

	if err := e.DB.DeleteUser(e.Ctx, ann.ID); err != nil {
		t.Fatal(err)
	}
	if l, _ := nextList(t, lists, 3*testHeartbeat); core.ErrorCode(l.Err) != core.EInvalidToken {
		t.Fatalf("after the account went: %+v", l)
	}
}

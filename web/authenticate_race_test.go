package web_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// Authenticate keeps, beside each verified token, its session as found
// under the user's generation (issue 35). Readers of one token race the
// writes that end its session, with writes in between that only move the
// user's generation (another session of the user touched), on the backend
// on both backends (PostgreSQL serving generations, as serve does): every
// read begun after the end returned fails, every read finished before it
// began succeeds.
func TestAuthenticateNeverServesAnEndedSession(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: time.Now()}, func(t *testing.T, e *testenv.Env) {
		if g, ok := e.Store.(core.GenerationServer); ok {
			g.ServeGenerations()
		}
		authenticateRaces(t, e)
	})
}

func authenticateRaces(t *testing.T, e *testenv.Env) {
	ctx := context.Background()
	for deadline := time.Now().Add(10 * time.Second); !keeps(e); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) { // PostgreSQL keeps once its lease is taken
			t.Fatal("the store keeps no generation: nothing would be kept")
		}
	}
	const email = "race@example.com"
	if _, err := e.Auth.SignUp(ctx, core.SignUpInput{Email: email, Password: pw}, core.Client{}); err != nil {
		t.Fatal(err)
	}
	other, err := e.Auth.SignIn(ctx, email, pw, core.Client{})
	if err != nil {
		t.Fatal(err)
	}
	otherSession := sessionOf(t, e.Auth, other.IDToken)
	ends := []struct {
		name string
		end  func(sid, uid string) error
	}{
		{"sign-out", func(sid, _ string) error { return e.Store.DeleteSession(ctx, sid) }},
		{"the user's other sessions ended", func(_, uid string) error {
			return e.Store.DeleteUserSessions(ctx, uid, otherSession)
		}},
	}
	for round := range 6 {
		end := ends[round%len(ends)]
		tok, err := e.Auth.SignIn(ctx, email, pw, core.Client{})
		if err != nil {
			t.Fatal(err)
		}
		sid := sessionOf(t, e.Auth, tok.IDToken)
		var ending, ended atomic.Bool
		stop := make(chan struct{})
		failed := make(chan error, 4)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					after := ended.Load()
					_, err := e.Auth.Authenticate(ctx, tok.IDToken)
					switch {
					case after && err == nil:
						failed <- fmt.Errorf("round %d (%s): a read begun after the end succeeded", round, end.name)
						return
					case err != nil && !ending.Load():
						failed <- fmt.Errorf("round %d (%s): a read before the end failed: %v", round, end.name, err)
						return
					}
				}
			})
		}
		for i := range 20 {
			time.Sleep(200 * time.Microsecond)
			if _, err := e.Store.UpdateSession(ctx, otherSession, func(s *core.Session) error {
				s.UserAgent = fmt.Sprintf("round %d, touch %d", round, i)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		ending.Store(true)
		if err := end.end(sid, tok.User.ID); err != nil {
			t.Fatal(err)
		}
		ended.Store(true)
		time.Sleep(5 * time.Millisecond)
		close(stop)
		wg.Wait()
		select {
		case err := <-failed:
			t.Fatal(err)
		default:
		}
		if _, err := e.Auth.Authenticate(ctx, tok.IDToken); core.ErrorCode(err) != core.EInvalidToken {
			t.Fatalf("round %d (%s): after the end: %v", round, end.name, err)
		}
	}
}

// sessionOf is the session an ID token names.
func sessionOf(t *testing.T, a *core.Auth, token string) string {
	t.Helper()
	c, err := core.VerifyIDToken(a.SigningKey, token, a.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c.SessionID
}

// keeps tells whether a user's generation holds between two readings: a
// store that keeps nothing moves it at every reading.
func keeps(e *testenv.Env) bool {
	g, ok := e.Store.(core.UserGenerations)
	if !ok {
		return false
	}
	first := g.UserGeneration("u")
	return g.UserGeneration("u") == first
}

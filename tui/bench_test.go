package tui_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/tui"
	"github.com/sendlater/sendlater/web"
)

// The figures of docs/benchmarks.md ("The terminal"): the app starting
// and showing 1,000 messages over the remote client on loopback, and a key
// press answered (Update and the frame it draws) with 1,000 listed.
//
//	go test -run '^$' -bench . -benchtime 20x ./tui

const benchMessages = 1000

// thousand is a Pro author with 1,000 messages behind the real server, and
// the app's config over the API client with their token.
func thousand(b *testing.B) tui.Config {
	b.Helper()
	e := testenv.New(b, testenv.Config{})
	toks, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: "a long enough passphrase 42", Name: "Ann"}, core.Client{})
	if err != nil {
		b.Fatal(err)
	}
	id, err := e.Auth.Authenticate(e.Ctx, toks.IDToken)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.DB.UpdateUser(e.Ctx, id.UserID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	_, pat, err := e.Auth.CreateAccessToken(e.Acting(id), "bench", core.AllScopes)
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchMessages {
		if _, err := e.Messages.Create(e.Acting(id), core.MessageInput{Title: fmt.Sprintf("Letter %d", i), Name: "Bob",
			Recipient: "bob@example.com", Body: "The key is under the blue pot."}); err != nil {
			b.Fatal(err)
		}
	}
	srv := serve(b, e)
	c := web.NewAPIClient(srv.URL(), pat, 5*time.Second)
	return tui.Config{Messages: c, Account: c, Ctx: context.Background(), Where: srv.URL(), Now: e.Clock.Now}
}

func BenchmarkStartAndShow1000Remote(b *testing.B) {
	cfg := thousand(b)
	want := fmt.Sprintf("Pro plan · %d messages", benchMessages)
	b.ResetTimer()
	for range b.N {
		d := drive(b, cfg, 120, 40)
		d.waitFor(want)
		d.stop()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/start")
}

func BenchmarkKeyPressWith1000Listed(b *testing.B) {
	cfg := thousand(b)
	d := drive(b, cfg, 120, 40)
	d.waitFor(fmt.Sprintf("Pro plan · %d messages", benchMessages))
	keys := []tea.KeyPressMsg{{Code: tea.KeyDown}, {Code: tea.KeyUp}}
	b.ResetTimer()
	for i := range b.N {
		// What a program does with a key: Update, then draw the frame.
		d.m.Update(keys[i%2])
		_ = d.m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/key")
}

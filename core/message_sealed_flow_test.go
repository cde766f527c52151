package core_test

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

const (
	sealedText       = "The deeds are in the blue box, second shelf: ZEBRA-ORCHID-7731."
	sealedPassphrase = "violet harbor quietly mends seven copper lanterns"
	sealedHint       = "the walk we took in Lisbon"
)

var openLink = regexp.MustCompile(`https://sendlater\.test/open/([A-Za-z0-9]+\.[A-Za-z0-9_-]+)`)

// sealedMessage creates a message sealed in the client's way: an id made
// first, the envelope bound to it.
func sealedMessage(t *testing.T, e *testenv.Env, owner string) *core.Message {
	t.Helper()
	id := core.NewID()
	env, err := core.Seal(sealedPassphrase, id, []byte(sealedText), core.DefaultSealParams)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.Messages.Create(e.As(owner), core.MessageInput{Title: "For Ann", Name: "Ann", Recipient: "ann@example.com",
		ID: id, Sealed: &core.SealedLetter{Envelope: env.String(), Hint: sealedHint}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A sealed message is stored and delivered as its envelope: the email says
// it is sealed, shows the hint and the recipient's link; the link gives
// the envelope, which the passphrase opens and nothing else does; the
// author's timeline shows the opening; the operator reads "sealed".
func TestSealedMessageIsDeliveredAsALink(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
		m := sealedMessage(t, e, u.ID)
		got, err := e.Messages.Get(e.As(u.ID), m.ID)
		l, sealed := got.Sealed()
		if err != nil || !sealed || l.Hint != sealedHint || got.Text() != "" || !strings.HasPrefix(l.Envelope, "sealed:v1$") {
			t.Fatalf("read back: %+v %v", l, err)
		}
		// The operator sees that it is sealed, and a reveal does not open it.
		shown, err := e.Admin.RevealMessages(e.Ctx, []string{m.ID})
		if err != nil || !shown[0].IsSealed() || strings.Contains(shown[0].Body, "sealed:v1") || strings.Contains(shown[0].Body, sealedHint) {
			t.Fatalf("an operator's reveal: %q %v", shown[0].Body, err)
		}

		e.Clock.Set(m.SendDate.Add(time.Minute))
		if _, err := e.Delivery.Run(e.Ctx); err != nil {
			t.Fatal(err)
		}
		var mail string
		for range 5 { // the reminders came first
			p, _ := e.Next(t, "ann@example.com")
			if strings.Contains(p.Subject, "sealed") {
				mail = p.Text + p.HTML
				break
			}
		}
		if !strings.Contains(mail, "Their hint: "+sealedHint) || strings.Contains(mail, "ZEBRA") || strings.Contains(mail, "sealed:v1") {
			t.Fatalf("the delivery email:\n%s", mail)
		}
		token := openLink.FindStringSubmatch(mail)
		if token == nil {
			t.Fatalf("no open link in\n%s", mail)
		}
		v, err := e.Graph.Opens.Open(e.Ctx, token[1], "203.0.113.9")
		if err != nil || v.MessageID != m.ID || v.Hint != sealedHint || v.To != "Ann" {
			t.Fatalf("open: %+v %v", v, err)
		}
		env, err := core.ParseSealed(v.Envelope)
		if err != nil {
			t.Fatal(err)
		}
		if text, err := core.Open(sealedPassphrase, v.MessageID, env); err != nil || string(text) != sealedText {
			t.Fatalf("the passphrase opens %q %v", text, err)
		}
		if _, err := core.Open("violet harbor quietly mends seven copper lantern", v.MessageID, env); err != core.ErrWrongPassphrase {
			t.Fatalf("a wrong passphrase: %v", err)
		}
		for _, bad := range []string{m.ID + ".AAAAAAAAAAAAAAAAAAAAAA", m.ID + ".test", "nothing", token[1] + "x"} {
			if _, err := e.Graph.Opens.Open(e.Ctx, bad, "203.0.113.10"); core.ErrorCode(err) != core.ENotFound {
				t.Fatalf("token %q: %v", bad, err)
			}
		}
		es, _ := e.Messages.Events(e.As(u.ID), m.ID)
		if last := es[len(es)-1]; last.Kind != core.EventOpened || last.Recipient != "ann@example.com" {
			t.Fatalf("the timeline ends with %+v", last)
		}
		// A link opens LimitOpenToken times an hour, then waits.
		for i := 1; ; i++ {
			_, err := e.Graph.Opens.Open(e.Ctx, token[1], "198.51.100.7")
			if core.ErrorCode(err) == core.ETooManyRequests {
				if i != core.LimitOpenToken.Max {
					t.Fatalf("refused at the %d. fetch", i)
				}
				break
			}
			if err != nil || i > core.LimitOpenToken.Max {
				t.Fatalf("fetch %d: %v", i, err)
			}
		}
		// A year after the delivery the link opens nothing.
		e.Clock.Add(core.DefaultOpenValidity + 2*time.Hour)
		if _, err := e.Graph.Opens.Open(e.Ctx, token[1], "203.0.113.11"); core.ErrorCode(err) != core.ENotFound {
			t.Fatalf("a year later: %v", err)
		}
	})
}

// The server checks an envelope's shape and says which field is wrong.
func TestSealedMessageValidation(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	id := core.NewID()
	env, _ := core.Seal(sealedPassphrase, id, []byte("x"), core.DefaultSealParams)
	base := core.MessageInput{Title: "T", Name: "Ann", Recipient: "ann@example.com"}
	for _, c := range []struct {
		field string
		in    func(in *core.MessageInput)
	}{
		{"sealed.envelope", func(in *core.MessageInput) { in.ID, in.Sealed = id, &core.SealedLetter{Envelope: "sealed:v2$x"} }},
		{"sealed.envelope", func(in *core.MessageInput) {
			in.ID, in.Sealed = id, &core.SealedLetter{Envelope: strings.Replace(env.String(), "m=65536", "m=1024", 1)}
		}},
		{"sealed.hint", func(in *core.MessageInput) {
			in.ID, in.Sealed = id, &core.SealedLetter{Envelope: env.String(), Hint: "two\nlines"}
		}},
		{"id", func(in *core.MessageInput) { in.Sealed = &core.SealedLetter{Envelope: env.String()} }},
		{"message", func(in *core.MessageInput) {
			in.ID, in.Body, in.Sealed = id, "plain", &core.SealedLetter{Envelope: env.String()}
		}},
	} {
		in := base
		c.in(&in)
		_, err := e.Messages.Create(e.As(u.ID), in)
		if ce, ok := core.AsError(err); !ok || ce.Fields[c.field] == "" {
			t.Fatalf("%s: %v", c.field, err)
		}
	}
	if n, _ := e.Store.CountMessages(e.Ctx, u.ID); n != 0 {
		t.Fatalf("%d messages stored", n)
	}
}

// After a sealed create and its delivery, neither the bbolt file nor any
// PostgreSQL table holds the text or the passphrase, in any form the
// server could have written.
func TestSealedStoreHoldsNoPlaintext(t *testing.T) {
	secrets := [][]byte{[]byte("ZEBRA-ORCHID"), []byte(sealedPassphrase), []byte("copper lanterns"), []byte("blue box")}
	check := func(t *testing.T, where string, b []byte) {
		for _, s := range secrets {
			if bytes.Contains(bytes.ToLower(b), bytes.ToLower(s)) {
				t.Fatalf("%s holds %q", where, s)
			}
		}
	}
	deliver := func(t *testing.T, e *testenv.Env) {
		u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
		m := sealedMessage(t, e, u.ID)
		e.Clock.Set(m.SendDate.Add(time.Minute))
		if r, err := e.Delivery.Run(e.Ctx); err != nil || r.Delivered != 1 {
			t.Fatalf("pass: %+v %v", r, err)
		}
	}
	t.Run("bolt", func(t *testing.T) {
		e := testenv.New(t, testenv.Config{})
		deliver(t, e)
		b, err := os.ReadFile(e.DB.Path()) // every commit is on disk
		if err != nil {
			t.Fatal(err)
		}
		check(t, "the bbolt file", b)
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		e := testenv.New(t, testenv.Config{Backend: testenv.Postgres, PostgresURL: url})
		deliver(t, e)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, "select table_name from information_schema.tables where table_schema = current_schema()")
		if err != nil {
			t.Fatal(err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(tables) < 10 {
			t.Fatalf("tables %v %v", tables, err)
		}
		for _, table := range tables {
			var dump []byte
			if err := conn.QueryRow(ctx, "select coalesce(string_agg(t::text, E'\\n'), '') from "+pgx.Identifier{table}.Sanitize()+" t").Scan(&dump); err != nil {
				t.Fatal(err)
			}
			check(t, "table "+table, dump)
		}
	})
}

// Sealing is a perk of Pro and Business: a free author is refused with the
// plan's code; a sealed message stays re-sealable after its plan lapsed.
func TestSealingIsAPaidPerk(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	free := e.MustUser(t, "free@example.com", "", core.PlanStarter)
	id := core.NewID()
	env, _ := core.Seal(sealedPassphrase, id, []byte("x"), core.DefaultSealParams)
	_, err := e.Messages.Create(e.As(free.ID), core.MessageInput{Title: "T", Name: "Ann", Recipient: "ann@example.com",
		ID: id, Sealed: &core.SealedLetter{Envelope: env.String()}})
	if core.ErrorCode(err) != core.EFeatureNotIncluded {
		t.Fatalf("a free author's seal: %v", err)
	}
	plain, err := e.Messages.Create(e.As(free.ID), core.MessageInput{Title: "T", Name: "Ann", Recipient: "ann@example.com", Body: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	env, _ = core.Seal(sealedPassphrase, plain.ID, []byte("hello"), core.DefaultSealParams)
	if _, err := e.Messages.Update(e.As(free.ID), plain.ID, core.MessageUpdate{Sealed: &core.SealedLetter{Envelope: env.String()}}); core.ErrorCode(err) != core.EFeatureNotIncluded {
		t.Fatalf("a free author sealing a message: %v", err)
	}

	pro := e.MustUser(t, "pro@example.com", "", core.PlanPro)
	m := sealedMessage(t, e, pro.ID)
	if _, err := e.Store.UpdateUser(e.Ctx, pro.ID, func(u *core.User) error {
		u.StripeSubscriptionStatus = "canceled" // the plan lapsed
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	env, _ = core.Seal(sealedPassphrase, m.ID, []byte("changed"), core.DefaultSealParams)
	got, err := e.Messages.Update(e.As(pro.ID), m.ID, core.MessageUpdate{Sealed: &core.SealedLetter{Envelope: env.String(), Hint: "new"}})
	if l, _ := got.Sealed(); err != nil || l.Envelope != env.String() || l.Hint != "new" {
		t.Fatalf("a re-seal after the plan lapsed: %+v %v", l, err)
	}
}

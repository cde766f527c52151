package web_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// An operator leaves the same audit entries whichever way they reach the
// store: the services over the store itself (an admin command or
// `sendlater tui --user` with no server) or the running server's admin
// socket, on bbolt and on PostgreSQL. What they change and every body they
// read (acting for a user, or revealing as an operator) is recorded; a
// message read without --reveal carries no body.
func TestOperatorPathsLeaveTheSameAudit(t *testing.T) {
	logs := map[string][]string{}
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		for _, path := range []string{"store", "socket"} {
			t.Run(path, func(t *testing.T) {
				logs[strings.TrimPrefix(t.Name(), "TestOperatorPathsLeaveTheSameAudit/")] = operatorScript(t, e, path)
			})
		}
	})
	var first []string
	var firstName string
	for name, log := range logs {
		if first == nil {
			first, firstName = log, name
			continue
		}
		if !slices.Equal(log, first) {
			t.Errorf("%s left\n%s\n%s left\n%s", firstName, strings.Join(first, "\n"), name, strings.Join(log, "\n"))
		}
	}
	if len(first) == 0 {
		t.Fatal("no path ran")
	}
}

// operatorScript acts as an operator through path ("store" or "socket") on
// a user of its own and returns the audit entries it left, their ids and
// the user's address written as names.
func operatorScript(t *testing.T, e *testenv.Env, path string) []string {
	ctx := context.Background()
	email := path + "@example.com"
	ann := e.MustUser(t, email, "", core.PlanStarter)
	var admin core.Admin = e.Admin
	var author core.Messages = e.Operator.AuthorMessages()
	var account core.Account = e.Operator.AuthorAccount()
	actor := "alice (uid 1000)"
	adminCtx := core.WithOperator(ctx, actor)
	asAnn := core.ActAs(adminCtx, ann.ID)
	if path == "socket" {
		c, _ := serveTestSocket(t, e)
		admin, adminCtx, asAnn = c, ctx, ctx
		author, account = c.As(ann.ID), c.As(ann.ID)
	}
	step := func() { e.Clock.Add(time.Second) } // the log is in time order
	step()
	since := e.Clock.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	step()
	_, err := admin.SetPlan(adminCtx, email, core.PlanPro, "active")
	must(err)
	step()
	m, err := author.Create(asAnn, core.MessageInput{Title: "To Bob", Name: "Bob", Recipient: "bob@example.com", Body: "The key is under the mat."})
	must(err)
	step()
	_, err = author.List(asAnn, core.Page{})
	must(err)
	step()
	_, err = author.Get(asAnn, m.ID)
	must(err)
	step()
	title := "To Bob, again"
	_, err = author.Update(asAnn, m.ID, core.MessageUpdate{Title: &title})
	must(err)
	step()
	name := "Ann"
	_, err = account.UpdateProfile(asAnn, core.ProfileUpdate{Name: &name})
	must(err)
	step()
	_, err = author.Events(asAnn, m.ID) // the timeline: no body, no entry
	must(err)

	// An operator's reads carry no body; a reveal does, and is recorded.
	step()
	read, err := admin.FindMessage(adminCtx, m.ID)
	must(err)
	listed, _, err := admin.ListMessages(adminCtx, email, core.MessageFilter{})
	must(err)
	if read.Body != "" || len(listed) != 1 || listed[0].Body != "" {
		t.Fatalf("%s: a body without --reveal: %q, %+v", path, read.Body, listed)
	}
	revealed, err := admin.RevealMessages(adminCtx, []string{m.ID})
	must(err)
	if len(revealed) != 1 || revealed[0].Body != "The key is under the mat." {
		t.Fatalf("%s: revealed %+v", path, revealed)
	}
	step()
	_, err = admin.PostponeMessage(adminCtx, m.ID)
	must(err)
	step()
	must(author.Delete(asAnn, m.ID))

	entries, err := admin.ListAudit(adminCtx, since, 0)
	must(err)
	var out []string
	for _, en := range entries {
		if en.Actor == "" || en.Actor == "unknown" {
			t.Errorf("%s: %s has no operator: %+v", path, en.Action, en)
		}
		line := en.Action + " | " + en.Target + " | " + en.Detail
		line = strings.ReplaceAll(line, m.ID, "MESSAGE")
		line = strings.ReplaceAll(line, email, "USER")
		line = strings.Join(strings.Fields(line), " ")
		if strings.HasPrefix(en.Detail, "to ") { // a postpone's new date
			line = en.Action + " | " + strings.ReplaceAll(en.Target, m.ID, "MESSAGE") + " | to DATE"
		}
		out = append(out, line)
	}
	want := []string{
		"users.set-plan | USER | pro (active)",
		"messages.create | MESSAGE | created, for USER",
		"messages.reveal | USER | read a page of the list (1 messages)",
		"messages.reveal | MESSAGE | read the message body, for USER",
		"messages.update | MESSAGE | edited, for USER",
		"users.profile | USER | changed the settings as the author",
		"messages.reveal | MESSAGE | read the message body",
		"messages.postpone | MESSAGE | to DATE",
		"messages.delete | MESSAGE | deleted as the author, for USER",
	}
	if !slices.Equal(out, want) {
		t.Errorf("%s left\n%s\nwant\n%s", path, strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
	return out
}

// messages list --status and --due-before filter in core, before the page
// is cut, the same on the store and through the socket (which carries the
// filter, not every message), on both backends; a status that is none is
// refused with the field.
func TestAdminListFiltersByStatusAndDate(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		ctx := core.WithOperator(context.Background(), "alice (uid 1000)")
		ann := e.MustUser(t, "ann@example.com", "", core.PlanPro)
		asAnn := e.As(ann.ID)
		var ids []string
		for i, iv := range []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M} {
			e.Clock.Add(time.Second)
			m, err := e.Messages.Create(asAnn, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b", Interval: iv})
			if err != nil {
				t.Fatal(i, err)
			}
			ids = append(ids, m.ID)
		}
		paused := false
		if _, err := e.Messages.Update(asAnn, ids[2], core.MessageUpdate{IsActive: &paused}); err != nil {
			t.Fatal(err)
		}
		c, _ := serveTestSocket(t, e)
		for name, admin := range map[string]core.Admin{"store": e.Admin, "socket": c} {
			list := func(f core.MessageFilter) ([]string, int) {
				t.Helper()
				ms, total, err := admin.ListMessages(ctx, "ann@example.com", f)
				if err != nil {
					t.Fatalf("%s %+v: %v", name, f, err)
				}
				var got []string
				for _, m := range ms {
					got = append(got, m.ID)
				}
				return got, total
			}
			if got, total := list(core.MessageFilter{Status: core.StatusScheduled}); total != 2 || !slices.Equal(got, []string{ids[1], ids[0]}) {
				t.Errorf("%s: scheduled: %v of %d", name, got, total)
			}
			if got, total := list(core.MessageFilter{Status: core.StatusScheduled, Limit: 1, Offset: 1}); total != 2 || !slices.Equal(got, []string{ids[0]}) {
				t.Errorf("%s: the second scheduled: %v of %d", name, got, total)
			}
			if got, total := list(core.MessageFilter{Status: core.StatusPaused}); total != 1 || !slices.Equal(got, []string{ids[2]}) {
				t.Errorf("%s: paused: %v of %d", name, got, total)
			}
			if got, total := list(core.MessageFilter{DueBefore: e.Clock.Now().AddDate(0, 2, 0)}); total != 1 || !slices.Equal(got, []string{ids[0]}) {
				t.Errorf("%s: due within two months: %v of %d", name, got, total)
			}
			_, _, err := admin.ListMessages(ctx, "ann@example.com", core.MessageFilter{Status: "lost"})
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Code != core.EValidation || !strings.Contains(ce.Fields["status"], "scheduled, reminded") {
				t.Errorf("%s: status lost: %#v", name, err)
			}
		}
	})
}

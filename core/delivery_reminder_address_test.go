package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

// consentEnv is an environment on either backend with a Pro author,
// ada@example.com (UTC), who wants the 3-day and 1-day reminders too, and
// a 1-month message of hers made on 2026-01-01 at 08:00 UTC.
func consentEnv(t *testing.T, e *testenv.Env) (*core.User, *core.Message) {
	t.Helper()
	u := e.MustUser(t, "ada@example.com", "UTC", core.PlanPro)
	steps := []string{"3d", "1d"}
	if _, err := e.Auth.UpdateProfile(e.As(u.ID), core.ProfileUpdate{ReminderLadder: &steps}); err != nil {
		t.Fatal(err)
	}
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{
		Title: "The engine", Name: "Charles Babbage", Recipient: "charles@example.com",
		Body: "Dear Charles,\nit works.", Interval: core.Interval1M,
	})
	if err != nil {
		t.Fatal(err)
	}
	return u, m
}

var consentStart = testenv.Config{Start: time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)}

// setSecond sets the author's second reminder address as the settings do.
func setSecond(t *testing.T, e *testenv.Env, uid, addr string) *core.SessionUser {
	t.Helper()
	su, err := e.Auth.UpdateProfile(e.As(uid), core.ProfileUpdate{ReminderAddress: &addr})
	if err != nil {
		t.Fatal(err)
	}
	return su
}

// remindAt runs a pass at step before m's sendDate, which reminds the
// author once, and returns the author's email.
func remindAt(t *testing.T, e *testenv.Env, m *core.Message, step time.Duration) *smtptest.Parsed {
	t.Helper()
	e.Clock.Set(m.SendDate.Add(-step))
	got, err := e.Delivery.Run(e.Ctx)
	if err != nil || got.Reminded != 1 {
		t.Fatalf("pass at %v before: %+v, %v", step, got, err)
	}
	p, _ := e.Next(t, "ada@example.com")
	return p
}

// lastEntry is the last entry of m's timeline, as one line.
func lastEntry(t *testing.T, e *testenv.Env, m *core.Message) string {
	t.Helper()
	events, err := e.Store.ListMessageEvents(e.Ctx, m.ID)
	if err != nil || len(events) == 0 {
		t.Fatalf("timeline: %d entries, %v", len(events), err)
	}
	ev := events[len(events)-1]
	return string(ev.Kind) + " " + ev.Recipient + ": " + ev.Detail
}

func wantState(t *testing.T, e *testenv.Env, uid, state string) {
	t.Helper()
	su, err := e.Auth.Me(e.As(uid))
	if err != nil {
		t.Fatal(err)
	}
	if su.ReminderAddressState != state {
		t.Fatalf("reminder address state %q, want %q", su.ReminderAddressState, state)
	}
}

// refusable checks that p offers the one-click refusal of RFC 8058, in its
// headers and in its text and HTML, and returns the link.
func refusable(t *testing.T, p *smtptest.Parsed) string {
	t.Helper()
	link := strings.Trim(p.Header.Get("List-Unsubscribe"), "<>")
	if !strings.HasPrefix(link, testenv.DefaultBaseURL+"/unsubscribe/") ||
		p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("%q: no one-click refusal: List-Unsubscribe %q, -Post %q", p.Subject,
			p.Header.Get("List-Unsubscribe"), p.Header.Get("List-Unsubscribe-Post"))
	}
	if !strings.Contains(p.Text, link) || !strings.Contains(p.HTML, link) {
		t.Fatalf("%q: the refusal link is not in the body:\n%s", p.Subject, p.Text)
	}
	return link
}

// A second reminder address gets nothing but the request to confirm until
// it follows the link: the reminder's copy skips it, and the timeline and
// the settings say it waits. Confirmed, it gets the copies, each with a
// one-click refusal; the author's own reminder has none.
func TestReminderAddressGetsNothingUntilConfirmed(t *testing.T) {
	testenv.Backends(t, consentStart, func(t *testing.T, e *testenv.Env) {
		u, m := consentEnv(t, e)
		if su := setSecond(t, e, u.ID, "partner@example.com"); su.ReminderAddressState != core.ReminderAddressUnconfirmed {
			t.Fatalf("state after setting: %q", su.ReminderAddressState)
		}
		ask, _ := e.Next(t, "partner@example.com")
		refusable(t, ask)
		code := testenv.ReminderAddressCode(t, ask)
		if !strings.Contains(ask.Text, "ada@example.com") {
			t.Fatalf("the request does not say who asks:\n%s", ask.Text)
		}
		e.NoMoreEmail(t)

		remindAt(t, e, m, 240*time.Hour)
		e.NoMoreEmail(t) // no copy
		want := "reminder-failed partner@example.com: reminder 10d, 1 of 3, a copy to the second reminder address, not sent: waiting for the address to confirm"
		if got := lastEntry(t, e, m); !strings.HasPrefix(got, want) {
			t.Fatalf("timeline:\n%s\nwant\n%s", got, want)
		}
		wantState(t, e, u.ID, core.ReminderAddressUnconfirmed)

		// The first link is valid three days: gone by now. The settings'
		// "resend" sends another.
		if _, err := e.Auth.ApplyActionCode(e.Ctx, code); core.ErrorCode(err) != core.EExpiredActionCode {
			t.Fatalf("a link older than 3 days: %v", err)
		}
		if err := e.Auth.SendReminderAddressConfirmation(e.As(u.ID)); err != nil {
			t.Fatal(err)
		}
		again, _ := e.Next(t, "partner@example.com")
		refusable(t, again)
		code = testenv.ReminderAddressCode(t, again)
		info, err := e.Auth.ApplyActionCode(e.Ctx, code)
		if err != nil || info.Mode != core.ModeConfirmReminderAddress || info.Email != "partner@example.com" {
			t.Fatalf("following the link: %+v, %v", info, err)
		}
		wantState(t, e, u.ID, core.ReminderAddressConfirmed)
		if _, err := e.Auth.ApplyActionCode(e.Ctx, code); core.ErrorCode(err) != core.EInvalidActionCode {
			t.Fatalf("the link used twice: %v", err)
		}

		author := remindAt(t, e, m, 72*time.Hour)
		if author.Header.Get("List-Unsubscribe") != "" {
			t.Fatalf("the author's own reminder offers a refusal: %q", author.Header.Get("List-Unsubscribe"))
		}
		cp, _ := e.Next(t, "partner@example.com")
		refusable(t, cp)
		if !strings.Contains(cp.Text, "ada@example.com") {
			t.Fatalf("the copy does not say whose it is:\n%s", cp.Text)
		}
		if got := lastEntry(t, e, m); got != "reminded partner@example.com: reminder 3d, 2 of 3, a copy to the second reminder address" {
			t.Fatalf("timeline: %s", got)
		}
		e.NoMoreEmail(t)

		// Another address starts over: asked, unconfirmed, no copy.
		if su := setSecond(t, e, u.ID, "other@example.com"); su.ReminderAddressState != core.ReminderAddressUnconfirmed {
			t.Fatalf("state after changing: %q", su.ReminderAddressState)
		}
		e.Next(t, "other@example.com")
		remindAt(t, e, m, 24*time.Hour)
		e.NoMoreEmail(t)
	})
}

// An address that refused (the link of any email to it) gets nothing more:
// no copy, no new request; the settings say so.
func TestReminderAddressThatRefusedGetsNothingMore(t *testing.T) {
	testenv.Backends(t, consentStart, func(t *testing.T, e *testenv.Env) {
		u, m := consentEnv(t, e)
		setSecond(t, e, u.ID, "partner@example.com")
		ask := e.ConfirmReminderAddress(t, "partner@example.com")
		remindAt(t, e, m, 240*time.Hour)
		e.Next(t, "partner@example.com") // the copy, while it wants them

		link := refusable(t, ask)
		if _, err := e.Refuse.Refuse(e.Ctx, strings.TrimPrefix(link, testenv.DefaultBaseURL+"/unsubscribe/")); err != nil {
			t.Fatal(err)
		}
		wantState(t, e, u.ID, core.ReminderAddressRefused)
		remindAt(t, e, m, 72*time.Hour)
		e.NoMoreEmail(t)
		want := "reminder-failed partner@example.com: reminder 3d, 2 of 3, a copy to the second reminder address, not sent: the address refused every email sent through this service"
		if got := lastEntry(t, e, m); got != want {
			t.Fatalf("timeline:\n%s\nwant\n%s", got, want)
		}
		err := e.Auth.SendReminderAddressConfirmation(e.As(u.ID))
		wantCode(t, err, core.EInvalid)
		// Set again (after removing it), it is not asked either.
		setSecond(t, e, u.ID, "")
		setSecond(t, e, u.ID, "partner@example.com")
		wantState(t, e, u.ID, core.ReminderAddressRefused)
		remindAt(t, e, m, 24*time.Hour)
		e.NoMoreEmail(t)
	})
}

// The request to confirm can be sent again, within the verification
// emails' limits: 3 an hour to an address (and an account); a confirmed
// address is not asked again.
func TestReminderAddressResendIsLimited(t *testing.T) {
	testenv.Backends(t, consentStart, func(t *testing.T, e *testenv.Env) {
		u, _ := consentEnv(t, e)
		ctx := e.As(u.ID)
		wantCode(t, e.Auth.SendReminderAddressConfirmation(ctx), core.EInvalid) // none set
		setSecond(t, e, u.ID, "partner@example.com")
		e.Next(t, "partner@example.com")
		for range 2 {
			if err := e.Auth.SendReminderAddressConfirmation(ctx); err != nil {
				t.Fatal(err)
			}
			e.Next(t, "partner@example.com")
		}
		if ce := wantCode(t, e.Auth.SendReminderAddressConfirmation(ctx), core.ETooManyRequests); ce.RetryAfter <= 0 {
			t.Fatalf("no Retry-After: %+v", ce)
		}
		// Nor does setting another address go around the account's limit.
		addr := "other@example.com"
		_, err := e.Auth.UpdateProfile(ctx, core.ProfileUpdate{ReminderAddress: &addr})
		wantCode(t, err, core.ETooManyRequests)
		e.NoMoreEmail(t)
		wantState(t, e, u.ID, core.ReminderAddressUnconfirmed)

		e.Clock.Add(time.Hour)
		if err := e.Auth.SendReminderAddressConfirmation(ctx); err != nil {
			t.Fatal(err)
		}
		e.ConfirmReminderAddress(t, "partner@example.com")
		if err := e.Auth.SendReminderAddressConfirmation(ctx); err != nil {
			t.Fatal(err)
		}
		e.NoMoreEmail(t)
	})
}

// An address set before confirmation existed has never been asked: its
// first reminder asks it in place of the copy, once; confirmed, it gets the
// copies again.
func TestReminderAddressSetBeforeConsentIsAskedOnce(t *testing.T) {
	testenv.Backends(t, consentStart, func(t *testing.T, e *testenv.Env) {
		u, m := consentEnv(t, e)
		if _, err := e.Store.UpdateUser(e.Ctx, u.ID, func(u *core.User) error {
			u.ReminderAddress = "partner@example.com" // as the old server stored it
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		wantState(t, e, u.ID, core.ReminderAddressUnconfirmed)
		remindAt(t, e, m, 240*time.Hour)
		ask, _ := e.Next(t, "partner@example.com")
		refusable(t, ask)
		code := testenv.ReminderAddressCode(t, ask)
		if got := lastEntry(t, e, m); !strings.HasSuffix(got, "not sent: waiting for the address to confirm (the link sent to it) (asked now)") {
			t.Fatalf("timeline: %s", got)
		}
		remindAt(t, e, m, 72*time.Hour)
		e.NoMoreEmail(t) // asked once
		if _, err := e.Auth.ApplyActionCode(e.Ctx, code); core.ErrorCode(err) != core.EExpiredActionCode {
			t.Fatalf("a link older than 3 days: %v", err)
		}
		if err := e.Auth.SendReminderAddressConfirmation(e.As(u.ID)); err != nil {
			t.Fatal(err)
		}
		e.ConfirmReminderAddress(t, "partner@example.com")
		remindAt(t, e, m, 24*time.Hour)
		refusable(t, func() *smtptest.Parsed { p, _ := e.Next(t, "partner@example.com"); return p }())
		e.NoMoreEmail(t)
	})
}

package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// wantDue checks which messages DueMessages returns up to until.
func wantDue(tb testing.TB, s Stores, until time.Time, want ...string) {
	tb.Helper()
	got, err := s.Messages.DueMessages(ctx, until, 0)
	must(tb, err)
	wantIDs(tb, "DueMessages("+until.Format(time.DateTime)+")", got, want...)
}

// wantReminders checks which messages DueReminders returns up to until.
func wantReminders(tb testing.TB, s Stores, until time.Time, want ...string) {
	tb.Helper()
	got, err := s.Messages.DueReminders(ctx, until, 0)
	must(tb, err)
	wantIDs(tb, "DueReminders("+until.Format(time.DateTime)+")", got, want...)
}

func update(tb testing.TB, s Stores, id string, fn func(m *core.Message)) *core.Message {
	tb.Helper()
	m, err := s.Messages.UpdateMessage(ctx, id, func(m *core.Message) error { fn(m); return nil })
	must(tb, err)
	return m
}

func testDueIndex(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	send := m.SendDate
	wantDue(t, s, s.Clock.Now())
	wantDue(t, s, send.Add(-time.Second))
	wantDue(t, s, send, m.ID)

	// Paused: in no index. Resumed: back, once.
	off, on := false, true
	update(t, s, m.ID, func(m *core.Message) { m.Apply(core.MessageUpdate{IsActive: &off}, s.Clock.Now(), time.UTC) })
	wantDue(t, s, send.AddDate(1, 0, 0))
	wantReminders(t, s, send.AddDate(1, 0, 0))
	got, err := s.Messages.FindMessageByID(ctx, m.ID)
	must(t, err)
	if !got.DueAt.IsZero() || !got.RemindAt.IsZero() || got.DisplayStatus() != core.StatusPaused {
		t.Fatalf("paused message: due %v remind %v status %s", got.DueAt, got.RemindAt, got.DisplayStatus())
	}
	update(t, s, m.ID, func(m *core.Message) { m.Apply(core.MessageUpdate{IsActive: &on}, s.Clock.Now(), time.UTC) })
	wantDue(t, s, send, m.ID)

	// A new interval moves sendDate: the old index entry goes.
	s.Clock.Add(24 * time.Hour)
	iv := core.Interval6M
	m = update(t, s, m.ID, func(m *core.Message) { m.Apply(core.MessageUpdate{Interval: &iv}, s.Clock.Now(), time.UTC) })
	if !m.SendDate.After(send) {
		t.Fatalf("sendDate did not move: %v", m.SendDate)
	}
	wantDue(t, s, send)
	wantDue(t, s, m.SendDate, m.ID)

	// Claimed for sending: due again when the lease runs out, no reminder.
	lease := s.Clock.Now().Add(5 * time.Minute)
	update(t, s, m.ID, func(m *core.Message) { m.Status, m.LeaseUntil = core.StatusSending, lease })
	wantDue(t, s, lease.Add(-time.Second))
	wantDue(t, s, lease, m.ID)
	wantReminders(t, s, m.SendDate.AddDate(1, 0, 0))

	// A temporary failure: due at the retry, not before.
	retry := m.SendDate.Add(time.Hour)
	update(t, s, m.ID, func(m *core.Message) {
		m.Status, m.LeaseUntil, m.NextAttemptAt, m.Attempts = core.StatusScheduled, time.Time{}, retry, 1
	})
	wantDue(t, s, m.SendDate)
	wantDue(t, s, retry, m.ID)

	// Delivered and failed messages are in no index.
	for _, st := range []core.MessageStatus{core.StatusDelivered, core.StatusFailed} {
		update(t, s, m.ID, func(m *core.Message) { m.Status = st })
		wantDue(t, s, m.SendDate.AddDate(2, 0, 0))
		wantReminders(t, s, m.SendDate.AddDate(2, 0, 0))
	}

	// Deleted: gone from the index.
	m2 := MustCreateMessage(t, s, u.ID, core.Interval1M)
	wantDue(t, s, m2.SendDate, m2.ID)
	must(t, s.Messages.DeleteMessage(ctx, m2.ID))
	wantDue(t, s, m2.SendDate.AddDate(2, 0, 0))
	wantReminders(t, s, m2.SendDate.AddDate(2, 0, 0))
}

func testDueOrderAndLimit(t *testing.T, s Stores) {
	a := MustCreateUser(t, s, "ada@example.com")
	b := MustCreateUser(t, s, "bob@example.com")
	m12 := MustCreateMessage(t, s, a.ID, core.Interval12M)
	m1 := MustCreateMessage(t, s, b.ID, core.Interval1M)
	s.Clock.Add(time.Hour)
	m1b := MustCreateMessage(t, s, a.ID, core.Interval1M)
	m6 := MustCreateMessage(t, s, b.ID, core.Interval6M)
	far := m12.SendDate.AddDate(1, 0, 0)
	wantDue(t, s, far, m1.ID, m1b.ID, m6.ID, m12.ID)
	wantDue(t, s, m6.SendDate, m1.ID, m1b.ID, m6.ID)
	got, err := s.Messages.DueMessages(ctx, far, 2)
	must(t, err)
	wantIDs(t, "DueMessages limit 2", got, m1.ID, m1b.ID)
	got, err = s.Messages.DueReminders(ctx, far, 3)
	must(t, err)
	wantIDs(t, "DueReminders limit 3", got, m1.ID, m1b.ID, m6.ID)
	// What comes back is the whole, readable message.
	wantMessage(t, got[0], m1)
}

func testReminderIndex(t *testing.T, s Stores) {
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval6M)
	remind := m.SendDate.Add(-s.Reminders[0])
	wantReminders(t, s, remind.Add(-time.Second))
	wantReminders(t, s, remind, m.ID)

	// Once every reminder is sent, the message leaves the reminder index but
	// stays due.
	m = update(t, s, m.ID, func(m *core.Message) {
		m.Status, m.RemindersSent, m.ReminderSentAt = core.StatusReminded, len(core.Reminders(s.Reminders).Steps()), s.Clock.Now()
	})
	if !m.RemindAt.IsZero() {
		t.Fatalf("RemindAt = %v after the last reminder", m.RemindAt)
	}
	wantReminders(t, s, m.SendDate.AddDate(1, 0, 0))
	wantDue(t, s, m.SendDate, m.ID)

	// A postpone starts reminders over for the new date.
	s.Clock.Add(48 * time.Hour)
	m = update(t, s, m.ID, func(m *core.Message) { m.Postpone(s.Clock.Now(), time.UTC) })
	if m.RemindersSent != 0 {
		t.Fatalf("RemindersSent = %d after postpone", m.RemindersSent)
	}
	wantReminders(t, s, remind)
	wantReminders(t, s, m.SendDate.Add(-s.Reminders[0]), m.ID)
	wantDue(t, s, m.SendDate.Add(-time.Second))
	wantDue(t, s, m.SendDate, m.ID)
}

// testDueQueue: DueQueue counts what the delivery index holds due at now
// and tells the earliest due time, as DueMessages lists it.
func testDueQueue(t *testing.T, s Stores) {
	q, ok := s.Delivery.(core.DueQueue)
	if !ok {
		t.Skip("the delivery store tells no queue (core.DueQueue)")
	}
	wantQueue := func(now time.Time, count int, oldest time.Time) {
		t.Helper()
		n, first, err := q.DueQueue(ctx, now)
		must(t, err)
		if n != count || !first.Equal(oldest) {
			t.Fatalf("DueQueue(%s) = %d, %v; want %d, %v", now.Format(time.DateTime), n, first, count, oldest)
		}
	}
	wantQueue(s.Clock.Now(), 0, time.Time{})
	u := MustCreateUser(t, s, "ada@example.com")
	a := MustCreateMessage(t, s, u.ID, core.Interval1M)
	b := MustCreateMessage(t, s, u.ID, core.Interval6M)
	wantQueue(a.SendDate.Add(-time.Second), 0, time.Time{})
	wantQueue(a.SendDate, 1, a.SendDate)
	wantQueue(b.SendDate, 2, a.SendDate)
	off := false
	update(t, s, a.ID, func(m *core.Message) { m.Apply(core.MessageUpdate{IsActive: &off}, s.Clock.Now(), time.UTC) })
	wantQueue(b.SendDate, 1, b.SendDate)
}

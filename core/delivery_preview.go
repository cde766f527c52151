package core

// The dry run of a pass: what it would send by a given time.

import (
	"context"
	"time"
)

// DueSend is one email a pass would send by a given time: the dry run of
// `send-due --dry-run`, which sends nothing.
type DueSend struct {
	Kind      string // "delivery" or "reminder"
	MessageID string
	Owner     string
	To        string
	DueAt     time.Time
}

// Preview lists what a pass at the given time would send, and sends nothing;
// what an author's hold keeps back (core/message_hold.go) is left out.
func (d *Delivery) Preview(ctx context.Context, at time.Time) ([]DueSend, error) {
	due, err := d.Messages.DueMessages(ctx, at, 0)
	if err != nil {
		return nil, err
	}
	owners := map[string]*User{}
	owner := func(id string) *User {
		if u, ok := owners[id]; ok {
			return u
		}
		u, err := d.Users.FindUserByID(ctx, id)
		if err != nil {
			u = nil
		}
		owners[id] = u
		return u
	}
	out := []DueSend{}
	for _, m := range due {
		if !deliveryDue(m, at) {
			continue
		}
		if u := owner(m.Owner); u != nil && u.holds(m, m.SendDate, at) {
			continue
		}
		for _, r := range m.RecipientList() { // one line per email
			if !r.settled() && !r.NextAttemptAt.After(at) {
				out = append(out, DueSend{Kind: "delivery", MessageID: m.ID, Owner: m.Owner, To: r.Address, DueAt: m.DueAt})
			}
		}
	}
	reminders, err := d.Messages.DueReminders(ctx, at, 0)
	if err != nil {
		return nil, err
	}
	for _, m := range reminders {
		if !d.Reminders.due(m, at) || !m.SendDate.After(at) {
			continue
		}
		to := m.Owner
		if u := owner(m.Owner); u != nil {
			steps := d.Reminders.Steps()
			if !d.Reminders.sends(steps, m.RemindersSent, u.ReminderLadder) || u.holds(m, m.SendDate.Add(-steps[m.RemindersSent]), at) {
				continue
			}
			to = u.Email
		}
		out = append(out, DueSend{Kind: "reminder", MessageID: m.ID, Owner: m.Owner, To: to, DueAt: m.RemindAt})
	}
	return out, nil
}

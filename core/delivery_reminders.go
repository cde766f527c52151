package core

import (
	"slices"
	"time"
)

// Reminders are the offsets before sendDate at which the author is reminded,
// largest first (config scheduler.reminders). The store reschedules every
// message with them (Message.Reschedule) and the delivery pass claims and
// counts with them: one value, built once by NewReminders, serves both.
type Reminders []time.Duration

// DefaultReminders is one reminder ReminderLeadTime before sendDate.
var DefaultReminders = Reminders{ReminderLeadTime}

// MaxReminders is how many reminders a sendDate may have.
const MaxReminders = 5

// NewReminders checks offsets (at most MaxReminders, each positive and under
// 28 days, the shortest interval) and returns them largest first, each once.
func NewReminders(offsets []time.Duration) (Reminders, error) {
	if len(offsets) > MaxReminders {
		return nil, Errorf(EInvalid, "There may be at most %d reminder offsets.", MaxReminders)
	}
	for _, off := range offsets {
		if off <= 0 || off >= 28*24*time.Hour {
			return nil, Errorf(EInvalid, "Reminder offsets must be durations between 1s and 672h (28 days) before sendDate, e.g. [240h].")
		}
	}
	r := slices.Clone(offsets)
	slices.SortFunc(r, func(a, b time.Duration) int { return int((b - a) / time.Second) })
	return slices.Compact(r), nil
}

// passed counts the steps whose time has come for m at now.
func (r Reminders) passed(steps Reminders, m *Message, now time.Time) int {
	n := 0
	for _, off := range steps {
		if !m.SendDate.Add(-off).After(now) {
			n++
		}
	}
	return n
}

// due is the claim rule of a reminder: an active, waiting message whose next
// reminder step's time has come (Steps: the ladder's included) and that no
// pass is reminding.
func (r Reminders) due(m *Message, now time.Time) bool {
	if !m.IsActive || (m.Status != StatusScheduled && m.Status != StatusReminded) {
		return false
	}
	steps := r.Steps()
	return m.RemindersSent < len(steps) && !m.SendDate.Add(-steps[m.RemindersSent]).After(now) &&
		!m.LeaseUntil.After(now)
}

package core

import "time"

// The one rule of when a postpone moves a message (SPEC.md: sendDate
// becomes now plus the interval, and nothing happens when sendDate already
// falls on that day), asked by every front end before it offers the
// button, and the words they all say of it.

// PostponeTarget is the date a postpone at now moves m to: now plus its
// interval, in the author's zone loc.
func (m *Message) PostponeTarget(now time.Time, loc *time.Location) time.Time {
	return AddMonths(now, m.Interval.Months(), loc)
}

// PostponeMoves reports whether a postpone at now would move m's date:
// false when now plus the interval falls on the day m is already due, in
// the author's zone loc (a message created or postponed today).
func (m *Message) PostponeMoves(now time.Time, loc *time.Location) bool {
	return !SameDay(m.SendDate, m.PostponeTarget(now, loc), loc)
}

// PostponeBlockedUntil is, when a postpone at now would not move m's date,
// the start of the first day (in loc) from which it would; zero when it
// would move it now. Once past, a postpone moves the date again, so a
// client holding it needs no new answer to enable its button.
func (m *Message) PostponeBlockedUntil(now time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	if m.PostponeMoves(now, loc) {
		return time.Time{}
	}
	// At most a few days: a month's end clamps several days onto one.
	for day := now.In(loc); ; {
		y, mo, d := day.Date()
		day = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
		if m.PostponeMoves(day, loc) {
			return day
		}
	}
}

// PostponeNoEffect is what every front end says where a postpone would not
// move the date, date being the message's delivery date as it shows dates.
func PostponeNoEffect(date string) string {
	return "Postponing today would not move the date: it is already " + date + "."
}

// PostponedTo is what every front end says after a postpone moved the
// date, to date (SPEC.md's toast, and when).
func PostponedTo(date string) string {
	return "The message is postponed! It will be delivered on " + date + "."
}

// dateMoveKind is the timeline's word for a new delivery date: postponed
// when later, rescheduled when earlier (an operator's reschedule, a
// shorter interval, deliver-now).
func dateMoveKind(before, after time.Time) EventKind {
	if after.Before(before) {
		return EventRescheduled
	}
	return EventPostponed
}

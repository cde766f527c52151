package core

// The reminder ladder: a user setting that adds reminders at 3 days, 1 day
// and 2 hours before sendDate to the server's reminders (10 days by
// default, always sent), and a second reminder address (Pro and Business)
// that receives the reminders only. The store schedules every message with
// all the steps (Reminders.Steps); the pass sends the steps the author
// chose and steps over the others without a word (delivery_remind.go).

import (
	"fmt"
	"slices"
	"time"
)

// Ladder is the set of extra reminder steps a user chose (a bit each).
type Ladder uint8

// The ladder's steps.
const (
	Ladder3d Ladder = 1 << iota // 3 days before sendDate
	Ladder1d                    // 1 day before
	Ladder2h                    // on the day, 2 hours before
)

// ladderSteps are the steps with their names (the API's) and offsets,
// largest first.
var ladderSteps = []struct {
	step   Ladder
	name   string
	offset time.Duration
}{
	{Ladder3d, "3d", 72 * time.Hour},
	{Ladder1d, "1d", 24 * time.Hour},
	{Ladder2h, "2h", 2 * time.Hour},
}

const errLadder = `Reminder steps must be among "3d", "1d" and "2h"`

// ParseLadder reads the step names ("3d", "1d", "2h"), each at most once.
func ParseLadder(names []string) (Ladder, error) {
	var l Ladder
	for _, n := range names {
		i := slices.IndexFunc(ladderSteps, func(s struct {
			step   Ladder
			name   string
			offset time.Duration
		}) bool {
			return s.name == n
		})
		if i < 0 {
			return 0, ValidationError(map[string]string{"reminderLadder": errLadder})
		}
		l |= ladderSteps[i].step
	}
	return l, nil
}

// Names are l's step names, largest first; never nil.
func (l Ladder) Names() []string {
	out := []string{}
	for _, s := range ladderSteps {
		if l&s.step != 0 {
			out = append(out, s.name)
		}
	}
	return out
}

// has reports whether l holds the step at offset off.
func (l Ladder) has(off time.Duration) bool {
	for _, s := range ladderSteps {
		if s.offset == off && l&s.step != 0 {
			return true
		}
	}
	return false
}

// stepName names offset off: a ladder step's name, else the duration.
func stepName(off time.Duration) string {
	for _, s := range ladderSteps {
		if s.offset == off {
			return s.name
		}
	}
	if off%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", off/(24*time.Hour))
	}
	return off.String()
}

// Steps are every reminder a message may get: r and the ladder's steps,
// largest first, each once. The store schedules with them
// (Message.Reschedule); Message.RemindersSent counts into them. A server
// with no reminders configured has no steps: the ladder sits on top of them.
func (r Reminders) Steps() Reminders {
	if len(r) == 0 {
		return nil
	}
	out := slices.Clone(r)
	for _, s := range ladderSteps {
		if !slices.Contains(out, s.offset) {
			out = append(out, s.offset)
		}
	}
	slices.SortFunc(out, func(a, b time.Duration) int { return int((b - a) / time.Second) })
	return out
}

// sends reports whether step i of steps is sent to an author with ladder
// l: the server's reminders always, the ladder's if chosen.
func (r Reminders) sends(steps Reminders, i int, l Ladder) bool {
	return slices.Contains(r, steps[i]) || l.has(steps[i])
}

// nextSent is the first step from i on that the author gets, or len(steps).
func (r Reminders) nextSent(steps Reminders, i int, l Ladder) int {
	for i < len(steps) && !r.sends(steps, i, l) {
		i++
	}
	return i
}

// sentCount is how many steps the author with ladder l gets per sendDate.
func (r Reminders) sentCount(steps Reminders, l Ladder) int {
	n := 0
	for i := range steps {
		if r.sends(steps, i, l) {
			n++
		}
	}
	return n
}

// ReminderAddressAllowed reports whether the plan allows a second
// reminder address: Pro and Business, active.
func ReminderAddressAllowed(plan PlanID, active bool) bool {
	return RecipientLimit(plan, active) > 1
}

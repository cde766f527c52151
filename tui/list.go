package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/core"
)

// listView is the author's messages, newest first, with one selected.
type listView struct {
	messages      []*core.Message
	cursor, top   int
	width, height int // height: rows of messages shown
}

func (l *listView) SetSize(width, height int) {
	l.width, l.height = width, max(height, 1)
	l.scroll()
}

// set replaces the list, keeping the selected message selected.
func (l *listView) set(ms []*core.Message) {
	var id string
	if sel := l.selected(); sel != nil {
		id = sel.ID
	}
	l.messages = ms
	l.cursor = min(l.cursor, max(len(ms)-1, 0))
	for i, m := range ms {
		if m.ID == id {
			l.cursor = i
		}
	}
	l.scroll()
}

// put puts one changed message in its place; a new one goes first.
func (l *listView) put(m *core.Message) {
	for i, old := range l.messages {
		if old.ID == m.ID {
			l.messages[i] = m
			return
		}
	}
	l.messages = append([]*core.Message{m}, l.messages...)
	l.cursor = 0
	l.scroll()
}

func (l *listView) drop(id string) {
	for i, m := range l.messages {
		if m.ID == id {
			l.messages = append(l.messages[:i:i], l.messages[i+1:]...)
			break
		}
	}
	l.set(l.messages)
}

func (l *listView) selected() *core.Message {
	if l.cursor < len(l.messages) {
		return l.messages[l.cursor]
	}
	return nil
}

func (l *listView) move(by int) {
	l.cursor = max(0, min(l.cursor+by, len(l.messages)-1))
	l.scroll()
}

func (l *listView) scroll() {
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+l.height {
		l.top = l.cursor - l.height + 1
	}
	l.top = max(0, min(l.top, len(l.messages)-l.height))
}

// columns are the widths of title and recipient: what the fixed columns
// (status 9, interval 5, delivery 10, days left 9, and the gaps) leave.
func (l *listView) columns() (title, recipient int) {
	rest := max(l.width-2-9-5-10-9-5, 20)
	title = rest * 4 / 10
	return title, rest - title
}

func (l *listView) View(st styles, now time.Time, loc *time.Location) string {
	tw, rw := l.columns()
	row := func(title, recipient, status, every, date, left string) string {
		return "  " + cell(title, tw) + " " + cell(recipient, rw) + " " + cell(status, 9) + " " +
			cell(every, 5) + " " + cell(date, 10) + " " + cell(left, 9)
	}
	lines := []string{st.Header.Render(row("TITLE", "RECIPIENT", "STATUS", "EVERY", "DELIVERY", "DAYS LEFT"))}
	if len(l.messages) == 0 {
		lines = append(lines, "", "  No messages yet. Press n to write the first.")
	}
	for i := l.top; i < len(l.messages) && i < l.top+l.height; i++ {
		m := l.messages[i]
		status := statusOf(m)
		title := m.Title
		if m.IsSealed() {
			title = cellKeep(title, " (sealed)", tw) // as the web app's lock says it
		}
		line := row(title, cellKeep(recipientOf(m), moreOf(m), rw), status, string(m.Interval),
			m.SendDate.In(loc).Format("2006-01-02"), daysLeft(m, now))
		if i == l.cursor {
			line = st.Selected.Render("›" + line[1:])
		} else if s, ok := st.Status[status]; ok {
			line = s.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// statusOf is where the message is: paused while it is off, whatever its
// delivery state was.
func statusOf(m *core.Message) string {
	if !m.IsActive && (m.Status == core.StatusScheduled || m.Status == core.StatusReminded) {
		return string(core.StatusPaused)
	}
	return string(m.Status)
}

// recipientOf is the first recipient.
func recipientOf(m *core.Message) string {
	return fmt.Sprintf("%s <%s>", m.Name, m.Recipient)
}

// moreOf says how many recipients there are beside the first, and how
// many of them bounce (their address returned an email for good).
func moreOf(m *core.Message) string {
	rs := m.RecipientList()
	more := ""
	if n := len(rs) - 1; n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	bouncing := 0
	for _, r := range rs {
		if r.Bouncing() {
			bouncing++
		}
	}
	if bouncing > 0 {
		more += fmt.Sprintf(" ! %d bouncing", bouncing)
	}
	return more
}

// cellKeep is s then suffix in w columns: s is cut first, so that the
// suffix ("and 2 more") always shows.
func cellKeep(s, suffix string, w int) string {
	if suffix == "" {
		return s
	}
	s = strings.Join(strings.Fields(s), " ")
	if room := w - lipgloss.Width(suffix); lipgloss.Width(s) > room && room > 1 {
		s = ansi.Truncate(s, room, "…")
	}
	return s + suffix
}

// daysLeft is how many days until delivery: "today" on the last one, "-"
// once delivered or failed.
func daysLeft(m *core.Message, now time.Time) string {
	switch m.Status {
	case core.StatusDelivered, core.StatusFailed, core.StatusSending:
		return "-"
	}
	d := int(math.Ceil(m.SendDate.Sub(now).Hours() / 24))
	switch {
	case d <= 0:
		return "today"
	case d == 1:
		return "1 day"
	}
	return fmt.Sprintf("%d days", d)
}

// cell is s on one line, cut or padded to exactly w columns.
func cell(s string, w int) string {
	s = strings.Join(strings.Fields(s), " ")
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}

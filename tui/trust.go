package tui

// Issue 13 in the terminal: the preview of each recipient's email and the
// test send (core/delivery_test_send.go), the delivery timeline (core/message_events.go) and
// the author's hold (core/message_hold.go), each a call of core.Messages in a
// tea.Cmd, the same on the local store and over the API.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// textMsg fills the text page opened as number seq (a later page wins).
type textMsg struct {
	seq   int
	lines []string
	err   error
}

// heldMsg is the session user after a hold was set or ended.
type heldMsg struct {
	verb string
	user *core.SessionUser
	err  error
}

const (
	previewTitle  = "What each recipient will get"
	timelineTitle = "History of "
)

// openText opens a text page titled title and reads its lines with read.
func (m *Model) openText(title string, read func() ([]string, error)) tea.Cmd {
	m.textSeq++
	seq := m.textSeq
	m.fromForm = false
	m.preview = newTextView(title, []string{"Loading…"})
	m.preview.SetSize(m.width, m.bodyHeight())
	m.page = pagePreview
	m.setStatus("", false)
	return func() tea.Msg {
		lines, err := read()
		return textMsg{seq: seq, lines: lines, err: err}
	}
}

func (m *Model) gotText(msg textMsg) {
	if msg.seq != m.textSeq || m.page != pagePreview {
		return
	}
	if msg.err != nil && m.fromForm {
		// The form's fields refused: back to the form, the messages
		// under them.
		m.page, m.fromForm = pageForm, false
		var e *core.Error
		if errors.As(msg.err, &e) && e.Code == core.EValidation {
			m.form.setErrors(e.Fields)
		}
		m.fail(msg.err)
		return
	}
	if msg.err != nil {
		m.preview.text = []string{"Nothing to show."}
		m.fail(msg.err)
	} else {
		m.preview.text = msg.lines
	}
	m.preview.SetSize(m.width, m.bodyHeight())
}

// previewLines are the emails of each recipient that render returns, to be
// delivered at date, as the server renders them (Messages.Preview of an
// unsaved message, PreviewMessage of a stored one: the delivery's own
// template code, which says when the message was written).
func (m *Model) previewLines(render func() ([]core.EmailPreview, error), date time.Time, loc *time.Location) ([]string, error) {
	es, err := render()
	if err != nil {
		return nil, err
	}
	var author core.Address
	if m.user != nil {
		author = core.Address{Name: m.user.Name, Address: m.user.Email}
	}
	var lines []string
	for i, e := range es {
		if len(es) > 1 {
			lines = append(lines, fmt.Sprintf("── Email %d of %d ──", i+1, len(es)))
		}
		lines = append(lines, "To:       "+addr(e.To), "Reply-To: "+addr(author),
			"Date:     "+date.In(loc).Format("Mon, 2 Jan 2006 15:04 MST"), "Subject:  "+e.Subject, "")
		lines = append(lines, strings.Split(strings.ReplaceAll(e.Text, "\r\n", "\n"), "\n")...)
		lines = append(lines, "")
	}
	return lines, nil
}

func addr(a core.Address) string {
	if a.Name == "" {
		return "<" + a.Address + ">"
	}
	return a.Name + " <" + a.Address + ">"
}

// eventLabels are the timeline's words, as the web app's history says them.
var eventLabels = map[core.EventKind]string{
	core.EventCreated: "Created", core.EventEdited: "Edited", core.EventPostponed: "Postponed",
	core.EventRescheduled: "Rescheduled earlier",
	core.EventPaused:      "Paused", core.EventResumed: "Resumed", core.EventReminded: "Reminder sent",
	core.EventReminderFailed: "Reminder failed", core.EventSent: "Sent", core.EventRetrying: "Retrying",
	core.EventFailed: "Failed", core.EventRefused: "Refused by the recipient", core.EventWebhook: "Webhook called",
	core.EventHeld:    "Moved by your hold",
	core.EventBounced: "Returned by the recipient's mail server", core.EventComplained: "Marked as spam by the recipient",
	core.EventOpened: "Opened from the link", core.EventDownloaded: "File downloaded",
}

const whenLayout = "2006-01-02 15:04"

// bouncingLines put first, in the timeline, each recipient whose address
// returned an email for good, with the fix: edit the address.
func bouncingLines(msg *core.Message) []string {
	var lines []string
	for _, r := range msg.RecipientList() {
		if r.Bouncing() {
			lines = append(lines, fmt.Sprintf("! %s returned the %s: %s", r.Address, r.Bounce.Email, r.Bounce.Reason),
				"  Fix: press e and change the address before the delivery.")
		}
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return lines
}

// timelineLines are the message's history, oldest first, one line each.
func (m *Model) timelineLines(id string, loc *time.Location) ([]string, error) {
	evs, err := m.cfg.Messages.Events(m.cfg.Ctx, id)
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return []string{"Nothing has happened to this message yet."}, nil
	}
	lines := make([]string, 0, len(evs))
	for _, e := range evs {
		label := eventLabels[e.Kind]
		if label == "" {
			label = string(e.Kind)
		}
		var parts []string
		switch {
		case e.Kind == core.EventOpened:
			// A recipient opened a sealed message from their link: by
			// them, as the web app's history says it.
			if e.Recipient != "" {
				parts = append(parts, "by "+e.Recipient)
			}
		case e.Kind == core.EventDownloaded:
			// A recipient's first download of a file (Detail) from their link.
			if e.Detail != "" {
				parts = append(parts, e.Detail)
			}
			if e.Recipient != "" {
				parts = append(parts, "by "+e.Recipient)
			}
		default:
			if e.Recipient != "" {
				parts = append(parts, "to "+e.Recipient)
			}
			if e.Actor != "" {
				parts = append(parts, "by "+e.Actor)
			}
		}
		if t, err := time.Parse(time.RFC3339, e.Detail); err == nil && (e.Kind == core.EventPostponed || e.Kind == core.EventRescheduled || e.Kind == core.EventHeld) {
			parts = append(parts, "to "+t.In(loc).Format(whenLayout))
		} else if e.Detail != "" && e.Kind != core.EventDownloaded {
			parts = append(parts, e.Detail)
		}
		if !e.NextAttemptAt.IsZero() {
			parts = append(parts, "next attempt "+e.NextAttemptAt.In(loc).Format(whenLayout))
		}
		line := e.At.In(loc).Format(whenLayout) + "  " + label
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, ", ")
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// sendTest emails the author each recipient's email, marked as a test.
func (m *Model) sendTest(id string) tea.Cmd {
	m.setStatus("Sending a test to you…", false)
	return func() tea.Msg {
		n, err := m.cfg.Messages.SendTest(m.cfg.Ctx, id)
		verb := fmt.Sprintf("A test is on its way to you: %s, marked [Test], the schedule unchanged.", plural(n, "email"))
		return doneMsg{verb: verb, id: id, err: err, keep: true}
	}
}

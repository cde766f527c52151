package tui

import (
	"errors"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// holdView is "Hold everything": a date until which nothing of the author
// is delivered or reminded, set, moved or ended early (core/message_hold.go).
type holdView struct {
	date   textinput.Model
	err    string // the server's message about the date
	saving bool
}

const dateLayout = "2006-01-02"

func newHold(u *core.SessionUser, now time.Time, loc *time.Location, st styles) holdView {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "YYYY-MM-DD"
	in.CharLimit = len(dateLayout)
	in.SetStyles(textinput.DefaultStyles(st.dark))
	day := now.In(loc).AddDate(0, 0, 14)
	if u != nil && !u.HoldUntil.IsZero() {
		day = u.HoldUntil.In(loc)
	}
	in.SetValue(day.Format(dateLayout))
	in.Focus()
	return holdView{date: in}
}

func held(u *core.SessionUser) bool { return u != nil && !u.HoldUntil.IsZero() }

// holdLine is what the list says while a hold holds.
func holdLine(u *core.SessionUser, loc *time.Location) string {
	return "Your messages are on hold until " + u.HoldUntil.In(loc).Format("Monday, January 2, 2006") + "."
}

func (m *Model) openHold() tea.Cmd {
	m.hold = newHold(m.user, m.cfg.Now(), m.location(), m.styles)
	m.page = pageHold
	m.setStatus("", false)
	return nil
}

func (m *Model) holdKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case k.String() == "ctrl+c":
		return tea.Quit
	case key.Matches(k, m.keys.HoldBack):
		m.page = pageList
		m.setStatus("", false)
		return nil
	case m.hold.saving:
		return nil
	case key.Matches(k, m.keys.SetHold):
		// The start of that day where the author lives, as the web app's
		// date field sends it.
		day, err := time.ParseInLocation(dateLayout, strings.TrimSpace(m.hold.date.Value()), m.location())
		if err != nil {
			m.hold.err = "Please enter a date as YYYY-MM-DD"
			return nil
		}
		m.hold.saving, m.hold.err = true, ""
		m.setStatus("Holding your messages…", false)
		return m.callHold("Your messages are on hold.", func() (*core.SessionUser, error) {
			return m.cfg.Messages.Hold(m.cfg.Ctx, day)
		})
	case key.Matches(k, m.keys.EndHold) && held(m.user):
		m.hold.saving, m.hold.err = true, ""
		m.setStatus("Ending the hold…", false)
		return m.callHold("The hold is over: your messages go on as scheduled.", func() (*core.SessionUser, error) {
			return m.cfg.Messages.EndHold(m.cfg.Ctx)
		})
	}
	var cmd tea.Cmd
	m.hold.date, cmd = m.hold.date.Update(k)
	return cmd
}

func (m *Model) callHold(verb string, call func() (*core.SessionUser, error)) tea.Cmd {
	return func() tea.Msg {
		u, err := call()
		return heldMsg{verb: verb, user: u, err: err}
	}
}

func (m *Model) gotHold(msg heldMsg) tea.Cmd {
	m.hold.saving = false
	if msg.err != nil {
		var e *core.Error
		if errors.As(msg.err, &e) && e.Code == core.EValidation && e.Fields["until"] != "" {
			m.hold.err = e.Fields["until"]
		}
		m.fail(msg.err)
		return nil
	}
	if msg.user != nil {
		m.setUser(msg.user)
	}
	m.page = pageList
	m.setStatus(msg.verb, false)
	// The held messages' dates moved: the live list brings them, and a
	// reload makes sure.
	return m.loadAll()
}

func (h *holdView) View(st styles, u *core.SessionUser, now time.Time, loc *time.Location) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	line(st.Title.Render("Hold everything"))
	line("")
	if held(u) {
		line("  " + st.Warn.Render(holdLine(u, loc)))
	} else {
		line("  Away for a while (a trip, a hospital stay)? Pause all your messages")
		line("  until a date:")
	}
	line("  nothing is delivered or reminded meanwhile; each message whose date")
	line("  passes gets a fresh reminder cycle when the hold ends, never an")
	line("  immediate delivery.")
	line("")
	line(st.Label.Render("› Hold until (tomorrow to 12 months ahead)"))
	line("  " + h.date.View())
	if h.err != "" {
		line("  " + st.Error.Render(h.err))
	} else {
		line("")
	}
	if h.saving {
		b.WriteString("  " + st.Dim.Render("Saving…"))
	}
	return b.String()
}

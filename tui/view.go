package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/core"
)

// The screen: a header line, the page, the status line and the key help,
// exactly the terminal's size, whatever it is (80x24 and up is the layout's
// aim; smaller still draws, cut).

// bodyHeight is the rows left to the page.
func (m *Model) bodyHeight() int { return max(m.height-3, 1) }

func (m *Model) resize() {
	m.list.SetSize(m.width, m.bodyHeight()-2) // the plan line and the column header
	if m.page == pageForm || m.page == pageSeal {
		m.form.SetSize(m.width, m.bodyHeight()-1) // under the page's title
	}
	if m.page == pageSeal {
		m.seal.SetSize(m.width)
	}
	m.preview.SetSize(m.width, m.bodyHeight())
	m.help.SetWidth(m.width)
}

func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	return v
}

// Render is the screen as text with its styles: View's content.
func (m *Model) Render() string {
	now, loc := m.cfg.Now(), m.location()
	var body string
	switch m.page {
	case pageForm:
		title := "Create Message"
		if m.form.editing != nil {
			title = "Update Message"
		}
		body = m.styles.Title.Render(title) + "\n" + m.form.View(m.styles, now, loc)
	case pagePreview:
		body = m.preview.View(m.styles)
	case pageHold:
		body = m.hold.View(m.styles, m.user, now, loc)
	case pageFiles:
		body = m.files.View(m.styles, m.width)
	case pageSeal:
		title := "Seal this message"
		if m.seal.mode == sealUnlock {
			title = "Open the sealed letter"
		}
		body = m.styles.Title.Render(title) + "\n" + m.seal.View(m.styles)
	default:
		body = m.planLine() + "\n" + m.list.View(m.styles, now, loc)
	}
	lines := strings.Split(body, "\n")
	if m.page == pageForm {
		// The form's title takes a line of the body.
		lines = lines[:min(len(lines), m.bodyHeight())]
	}
	lines = fit(lines, m.bodyHeight(), m.width)
	out := []string{m.header()}
	out = append(out, lines...)
	out = append(out, m.statusLine(), m.help.ShortHelpView(m.bindings()))
	for i := range out {
		out[i] = ansi.Truncate(out[i], m.width, "")
	}
	return strings.Join(out, "\n")
}

// fit cuts or pads lines to exactly n.
func fit(lines []string, n, width int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

func (m *Model) header() string {
	who := "…"
	if m.user != nil {
		who = m.user.Email
	}
	return m.styles.Title.Render("Sendlater") + m.styles.Dim.Render(" · "+who+" · "+m.cfg.Where)
}

// planLine says the plan and what it allows, the draft offered, or the
// delete to confirm.
func (m *Model) planLine() string {
	switch {
	case m.confirm != nil:
		return m.styles.Warn.Render("Delete “" + m.confirm.Title + "”? It cannot be undone. y delete · n keep")
	case m.offered != nil:
		title := m.offered.Title
		if title == "" {
			title = "untitled"
		}
		return m.styles.Warn.Render("An unsent draft “" + title + "” from " + m.offered.SavedAt.In(m.location()).Format("Jan 2 15:04") +
			" was kept. o open it · x discard it")
	case m.user == nil:
		return ""
	}
	plan := "Free plan"
	if p, ok := core.FindPlan(m.user.PlanID); ok && m.user.PlanIsActive {
		plan = p.Name + " plan"
	}
	line := plan + " · " + plural(len(m.list.messages), "message")
	if m.user.MessageLimit > 0 {
		line += " · Remaining messages: " + itoa(max(m.user.MessageLimit-len(m.list.messages), 0))
	}
	if n := m.user.RecipientLimit; n > 1 {
		line += " · up to " + itoa(n) + " recipients each"
	}
	if held(m.user) {
		return m.styles.Warn.Render(holdLine(m.user, m.location())+" H to end it") + m.styles.Dim.Render(" · "+line)
	}
	return m.styles.Dim.Render(line)
}

func (m *Model) statusLine() string {
	if m.statusErr {
		return m.styles.Error.Render("! " + m.status)
	}
	return m.styles.OK.Render(m.status)
}

// bindings are the keys the page answers, for the help line.
func (m *Model) bindings() []key.Binding {
	k := m.keys
	switch {
	case m.page == pageForm:
		return []key.Binding{k.Next, k.Prev, k.Left, k.Save, k.FormPreview, k.Cancel}
	case m.page == pageSeal && m.seal.mode == sealUnlock:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")), k.HoldBack}
	case m.page == pageSeal && m.seal.canDrop:
		return []key.Binding{k.Next, key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "seal")),
			key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "do not seal")), k.HoldBack}
	case m.page == pageSeal:
		return []key.Binding{k.Next, key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "seal")), k.HoldBack}
	case m.page == pagePreview:
		return []key.Binding{k.Up, k.Back}
	case m.page == pageFiles:
		return m.filesBindings()
	case m.page == pageHold && held(m.user):
		return []key.Binding{k.SetHold, k.EndHold, k.HoldBack}
	case m.page == pageHold:
		return []key.Binding{k.SetHold, k.HoldBack}
	case m.confirm != nil:
		return []key.Binding{k.Yes, k.No}
	case m.offered != nil:
		return []key.Binding{k.OpenDraft, k.DropDraft, k.New, k.Quit}
	}
	if !m.following {
		return []key.Binding{k.Reload, k.Up, k.New, k.Edit, k.Postpone, k.Pause, k.Delete, k.Quit}
	}
	if m.moreKeys {
		return []key.Binding{k.Preview, k.Test, k.Timeline, k.Files, k.Hold, k.Reload, k.Less, k.Quit}
	}
	return []key.Binding{k.Up, k.New, k.Edit, k.Postpone, k.Pause, k.Delete, k.More, k.Quit}
}

func itoa(n int) string { return strconv.Itoa(n) }

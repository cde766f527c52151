package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/core"
)

// filesKey answers a key on the files page.
func (m *Model) filesKey(k tea.KeyPressMsg) tea.Cmd {
	v := &m.files
	switch {
	case k.String() == "ctrl+c":
		m.endUpload()
		return tea.Quit
	case v.askPass:
		return m.passKey(k)
	case v.checking:
		return nil // the form's passphrase is being checked
	case v.asking:
		switch k.String() {
		case "enter":
			return m.startUpload()
		case "esc":
			v.asking, v.saving = false, nil
			v.path.Blur()
			return nil
		}
		var cmd tea.Cmd
		v.path, cmd = v.path.Update(k)
		return cmd
	case v.confirm != nil:
		f := *v.confirm
		v.confirm = nil
		if key.Matches(k, m.keys.Yes) {
			return m.removeFile(f)
		}
		m.setStatus(f.Name+" is kept.", false)
		return nil
	case key.Matches(k, m.keys.Back):
		if up := v.up; up != nil {
			// Stopped: what the server holds of it goes too.
			m.endUpload()
			m.setStatus("The upload of "+up.file.Name+" is stopped.", false)
			if up.file.ID != "" {
				return m.removeFile(up.file)
			}
			return nil
		}
		m.page = v.back
		m.setStatus("", false)
		return nil
	case key.Matches(k, m.keys.Up):
		v.cursor = max(v.cursor-1, 0)
	case key.Matches(k, m.keys.Down):
		v.cursor = max(min(v.cursor+1, len(v.files)-1), 0)
	case key.Matches(k, m.keys.Attach):
		switch {
		case v.up != nil:
			m.setStatus("One file at a time: wait for this upload to end (esc stops it).", true)
		case len(v.files) >= core.MaxAttachments:
			m.setStatus(fmt.Sprintf("A message can have at most %d files.", core.MaxAttachments), true)
		default:
			v.asking, v.saving = true, nil
			v.path.SetValue("")
			m.setStatus("", false)
			return v.path.Focus()
		}
	case key.Matches(k, m.keys.SaveFile) && v.cursor < len(v.files) && v.up == nil:
		f := v.files[v.cursor]
		if !f.Complete {
			m.setStatus(f.Name+" is not whole yet: nothing to save.", true)
			return nil
		}
		v.asking, v.saving = true, &f
		v.path.SetValue(f.Name)
		v.path.CursorEnd()
		m.setStatus("", false)
		return v.path.Focus()
	case key.Matches(k, m.keys.Remove) && v.cursor < len(v.files):
		f := v.files[v.cursor]
		v.confirm = &f
	}
	return nil
}

// filesBindings are the files page's keys, for the help line.
func (m *Model) filesBindings() []key.Binding {
	k, v := m.keys, &m.files
	switch {
	case v.askPass:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "check")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))}
	case v.asking && v.saving != nil:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))}
	case v.asking:
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "attach")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))}
	case v.confirm != nil:
		return []key.Binding{key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "remove")), k.No}
	case v.up != nil:
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop the upload"))}
	}
	return []key.Binding{k.Up, k.Attach, k.SaveFile, k.Remove, k.HoldBack}
}

// View is the files page: the message's files with their sizes and marks,
// the path being typed, the upload's progress.
func (v *filesView) View(st styles, width int) string {
	wrap := func(s string) []string {
		return strings.Split(ansi.Wordwrap(s, max(width-4, 20), ""), "\n")
	}
	lines := []string{st.Title.Render("Files of “" + v.message.Title + "”")}
	intro := fmt.Sprintf("Up to %d files; they go with the message, sealed at rest, and each recipient gets a link to them.", core.MaxAttachments)
	if v.message.IsSealed() {
		intro = fmt.Sprintf("Up to %d files; they go with the message, sealed with its passphrase, and each recipient opens them on the message's page.",
			core.MaxAttachments)
	}
	for _, l := range wrap(intro) {
		lines = append(lines, "  "+st.Dim.Render(l))
	}
	lines = append(lines, "")
	switch {
	case !v.loaded:
		lines = append(lines, "  Loading the files…")
	case len(v.files) == 0:
		lines = append(lines, "  No files yet: a attaches one.")
	}
	nameWidth := max(width-30, 16)
	for i, f := range v.files {
		mark := ""
		switch {
		case !f.Complete && f.Size > 0:
			mark = fmt.Sprintf("uploading %d%%", f.Offset*100/f.Size)
		case !f.Complete:
			mark = "uploading"
		case f.Executable:
			mark = "executable"
		case f.ClientSealed:
			mark = "sealed"
		}
		size := f.Size
		if f.ClientSealed && f.Complete { // the size its recipients open
			size = core.ShownOpenedFileSize(size)
		}
		row := strings.TrimRight(fmt.Sprintf("%-*s %10s  %s", nameWidth, ansi.Truncate(f.Name, nameWidth, "…"), core.FormatBytes(size), mark), " ")
		switch {
		case i == v.cursor && !v.asking:
			row = st.Selected.Render("› " + row)
		case f.Executable:
			row = "  " + st.Warn.Render(row)
		default:
			row = "  " + row
		}
		lines = append(lines, row)
	}
	if v.confirm != nil {
		lines = append(lines, "", "  "+st.Warn.Render("Remove “"+v.confirm.Name+"” and its bytes? y remove · n keep"))
	}
	if v.asking {
		label := "Path of the file to attach"
		if v.saving != nil {
			label = "Save a copy of “" + v.saving.Name + "” to"
			if v.saving.ClientSealed {
				label += " (opened with the passphrase)"
			}
		}
		lines = append(lines, "", "  "+st.Label.Render(label), "  "+v.path.View())
	}
	if v.askPass {
		lines = append(lines, "", "  "+st.Label.Render("Passphrase of the sealed message"), "  "+v.passIn.View())
		if v.passProblem != "" {
			for _, l := range wrap(v.passProblem) {
				lines = append(lines, "  "+st.Error.Render(l))
			}
		}
	}
	if v.checking {
		lines = append(lines, "  "+st.Dim.Render("Checking the passphrase (Argon2id, 64 MiB)…"))
	}
	if up := v.up; up != nil {
		lines = append(lines, "", "  "+up.progress(), "  "+bar(up.file.Offset, up.size, max(min(width-4, 60), 10)))
	}
	if v.problem != "" {
		lines = append(lines, "")
		for _, l := range wrap(v.problem) {
			lines = append(lines, "  "+st.Warn.Render(l))
		}
	}
	return strings.Join(lines, "\n")
}

// bar is a progress bar of done out of total, width cells wide.
func bar(done, total int64, width int) string {
	full := width
	if total > 0 {
		full = int(done * int64(width) / total)
	}
	return strings.Repeat("█", full) + strings.Repeat("░", width-full)
}

package tui

import (
	"strings"
	"time"

	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// key answers a key press on the page shown.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch m.page {
	case pageForm:
		return m.formKey(k)
	case pageHold:
		return m.holdKey(k)
	case pageSeal:
		return m.sealKey(k)
	case pageFiles:
		return m.filesKey(k)
	case pagePreview:
		switch {
		case key.Matches(k, m.keys.Back):
			m.page = pageList
			if m.fromForm {
				m.page, m.fromForm = pageForm, false
			}
		case key.Matches(k, m.keys.Up):
			m.preview.scroll(-1)
		case key.Matches(k, m.keys.Down):
			m.preview.scroll(1)
		case k.String() == "ctrl+c":
			return tea.Quit
		}
		return nil
	}
	return m.listKey(k)
}

func (m *Model) listKey(k tea.KeyPressMsg) tea.Cmd {
	keys, sel := m.keys, m.list.selected()
	if m.confirm != nil {
		target := m.confirm
		m.confirm = nil
		if key.Matches(k, keys.Yes) {
			m.setStatus("Deleting…", false)
			return m.remove(target.ID)
		}
		m.setStatus("The message is kept.", false)
		return nil
	}
	if m.offered != nil {
		switch {
		case key.Matches(k, keys.OpenDraft):
			d := *m.offered
			m.offered = nil
			return m.openForm(d, m.find(d.ID))
		case key.Matches(k, keys.DropDraft):
			m.offered = nil
			m.draftSeq++
			m.setStatus("The draft is discarded.", false)
			return m.drafts.remove(m.draftSeq)
		}
	}
	switch {
	case key.Matches(k, keys.Quit):
		return tea.Quit
	case key.Matches(k, keys.Up):
		m.list.move(-1)
	case key.Matches(k, keys.Down):
		m.list.move(1)
	case k.String() == "pgup":
		m.list.move(-m.list.height)
	case k.String() == "pgdown":
		m.list.move(m.list.height)
	case key.Matches(k, keys.New):
		// The list may be newer than the user it came with: a full list
		// refuses too, before the server would.
		if u := m.user; u != nil && (!u.CanAddMessage || u.MessageLimit > 0 && len(m.list.messages) >= u.MessageLimit) {
			m.setStatus(upgrade(m.user), true)
			return nil
		}
		return m.openForm(Draft{Interval: string(core.DefaultInterval)}, nil)
	case key.Matches(k, keys.More):
		m.moreKeys = !m.moreKeys
	case key.Matches(k, keys.Hold):
		return m.openHold()
	case key.Matches(k, keys.Reload):
		m.setStatus(loading, false)
		return tea.Batch(m.loadAll(), m.me(), m.refollow())
	case sel == nil:
	case key.Matches(k, keys.Edit):
		return m.openForm(draftOf(sel), sel)
	case key.Matches(k, keys.Postpone):
		return m.postpone(sel)
	case key.Matches(k, keys.Pause):
		return m.setActive(sel.ID, !sel.IsActive)
	case key.Matches(k, keys.Delete):
		m.confirm = sel
	case key.Matches(k, keys.Preview):
		loc, id := m.location(), sel.ID
		stored := func() ([]core.EmailPreview, error) {
			return m.cfg.Messages.PreviewMessage(m.cfg.Ctx, id, core.MessageUpdate{})
		}
		return m.openText(previewTitle, func() ([]string, error) { return m.previewLines(stored, sel.SendDate, loc) })
	case key.Matches(k, keys.Timeline):
		loc := m.location()
		return m.openText(timelineTitle+"“"+sel.Title+"”", func() ([]string, error) {
			lines, err := m.timelineLines(sel.ID, loc)
			return append(bouncingLines(sel), lines...), err
		})
	case key.Matches(k, keys.Test):
		return m.sendTest(sel.ID)
	case key.Matches(k, keys.Files):
		return m.openFiles(sel, pageList)
	}
	return nil
}

// find is the listed message of id; nil when none (a draft of a message
// deleted since becomes a new message).
func (m *Model) find(id string) *core.Message {
	for _, msg := range m.list.messages {
		if id != "" && msg.ID == id {
			return msg
		}
	}
	return nil
}

func (m *Model) openForm(d Draft, editing *core.Message) tea.Cmd {
	if editing == nil {
		d.ID = ""
	}
	m.form = newForm(d, editing, m.recipientLimit(), m.styles)
	m.form.canSeal = m.maySeal()
	m.form.files = editing != nil && m.cfg.Files != nil
	m.form.SetSize(m.width, m.bodyHeight()-1) // under the page's title
	m.page = pageForm
	m.setStatus("", false)
	return nil
}

// keepDraft writes the form to the draft file, in a tea.Cmd.
func (m *Model) keepDraft() tea.Cmd {
	m.draftSeq++
	d := m.form.draft()
	d.SavedAt = m.cfg.Now()
	return m.drafts.save(d, m.draftSeq)
}

func (m *Model) formKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case k.String() == "ctrl+c":
		return tea.Quit // the draft stays on disk and is offered next time
	case key.Matches(k, m.keys.Cancel):
		m.page = pageList
		m.draftSeq++
		m.setStatus("The draft is discarded.", false)
		return m.drafts.remove(m.draftSeq)
	case key.Matches(k, m.keys.FormPreview):
		// What each recipient will get, before saving; esc comes back. An
		// edit is previewed as the stored message with the form's changes,
		// so it says the day it was written.
		loc := m.location()
		date := m.form.deliveryDate(m.cfg.Now(), loc)
		// A letter to be sealed is sealed for the preview too (in the
		// command: Argon2id), and its text shown as opened.
		in, job := m.form.messageInput(), m.form.sealJob()
		render := func() ([]core.EmailPreview, error) {
			if job != nil {
				l, err := job.letter()
				if err != nil {
					return nil, err
				}
				in.Sealed = l
			}
			return m.cfg.Messages.Preview(m.cfg.Ctx, in)
		}
		if ed := m.form.editing; ed != nil {
			id, up := ed.ID, m.form.changes()
			render = func() ([]core.EmailPreview, error) {
				if job != nil {
					l, err := job.letter()
					if err != nil {
						return nil, err
					}
					up.Sealed = l
				}
				return m.cfg.Messages.PreviewMessage(m.cfg.Ctx, id, up)
			}
		}
		var opened []string
		if m.form.seal != nil {
			opened = append([]string{"── Once opened with the passphrase, the letter reads ──", ""}, strings.Split(m.form.body.Value(), "\n")...)
		}
		cmd := m.openText(previewTitle, func() ([]string, error) {
			lines, err := m.previewLines(render, date, loc)
			return append(lines, opened...), err
		})
		m.fromForm = true
		return cmd
	case key.Matches(k, m.keys.Save):
		if m.form.saving {
			return nil
		}
		m.form.saving, m.form.problem = true, ""
		m.form.setErrors(nil)
		job := m.form.sealJob()
		m.form.sealing = job != nil
		if job != nil {
			m.setStatus("Sealing the letter with your passphrase (Argon2id, 64 MiB)…", false)
		} else {
			m.setStatus("Saving…", false)
		}
		if m.form.editing == nil {
			return m.create(m.form.messageInput(), job)
		}
		return m.update(m.form.editing.ID, m.form.changes(), job, m.form.newPassphrase())
	case key.Matches(k, m.keys.Seal):
		return m.openSeal()
	case key.Matches(k, m.keys.FormFiles):
		if m.form.editing == nil {
			m.form.problem = "Save the message first (ctrl+s), then open it again: ctrl+f attaches files to it."
			return nil
		}
		return m.openFiles(m.form.editing, pageForm)
	}
	cmd, changed := m.form.Update(k, m.keys)
	if !changed {
		return cmd
	}
	return tea.Batch(cmd, m.keepDraft())
}

// recipientLimit is how many recipients the author's plan allows on a
// message (1 until the session user says).
func (m *Model) recipientLimit() int {
	if m.user == nil || m.user.RecipientLimit < 1 {
		return 1
	}
	return m.user.RecipientLimit
}

// location is the author's time zone: delivery dates are days there.
func (m *Model) location() *time.Location {
	if m.user == nil {
		return core.LoadLocation("")
	}
	return core.LoadLocation(m.user.Timezone)
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

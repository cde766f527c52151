package tui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// Every call to the client runs in a tea.Cmd and comes back as one of these
// typed messages, so the UI never waits on the network or the disk.

// followMsg is a live list opened (or not).
type followMsg struct {
	lists <-chan core.MessageList
	err   error
}

// listMsg is one value of the live list; ended is true when it closed.
type listMsg struct {
	list  core.MessageList
	ended bool
}

// allMsg is the whole list, every page of it.
type allMsg struct {
	messages []*core.Message
	err      error
}

// meMsg is the signed-in user.
type meMsg struct {
	user *core.SessionUser
	err  error
}

// doneMsg is the answer to a change of one message: saved, postponed,
// paused, resumed or deleted (message nil).
type doneMsg struct {
	verb    string // what the status line says on success
	id      string
	message *core.Message
	created bool
	// fromForm: the form's save, whose errors go under its fields.
	fromForm bool
	// keep: the list stays as it is (a test send changes no message).
	keep bool
	err  error
}

// retryMsg asks to follow the list again after it ended.
type retryMsg struct{}

func (m *Model) follow() tea.Cmd {
	return func() tea.Msg {
		lists, err := m.cfg.Messages.Follow(m.cfg.Ctx)
		return followMsg{lists, err}
	}
}

func waitList(lists <-chan core.MessageList) tea.Cmd {
	return func() tea.Msg {
		l, ok := <-lists
		return listMsg{list: l, ended: !ok}
	}
}

func (m *Model) retryLater() tea.Cmd {
	return tea.Tick(m.cfg.Retry, func(time.Time) tea.Msg { return retryMsg{} })
}

// loadAll reads every page of the list, MaxPageSize at a time.
func (m *Model) loadAll() tea.Cmd {
	return func() tea.Msg {
		var all []*core.Message
		p := core.Page{Limit: core.MaxPageSize}
		for {
			page, err := m.cfg.Messages.List(m.cfg.Ctx, p)
			if err != nil {
				return allMsg{err: err}
			}
			all = append(all, page.Messages...)
			if page.NextCursor == "" {
				return allMsg{messages: all}
			}
			p.Cursor = page.NextCursor
		}
	}
}

func (m *Model) me() tea.Cmd {
	return func() tea.Msg {
		u, err := m.cfg.Account.Me(m.cfg.Ctx)
		return meMsg{u, err}
	}
}

// change runs one call on a message and reports it as a doneMsg.
func (m *Model) change(verb, id string, call func() (*core.Message, error)) tea.Cmd {
	return func() tea.Msg {
		msg, err := call()
		return doneMsg{verb: verb, id: id, message: msg, err: err}
	}
}

// dayLayout is a delivery date in what the TUI says (the web app's long
// date in English).
const dayLayout = "January 2, 2006"

// postpone postpones sel, unless core's rule says it would not move the
// date (a message made or postponed today): the status line then says so,
// as the web app's disabled button does, and nothing is sent. After the
// call it says to when, or, when the date stayed (the day turned for the
// server first), why.
func (m *Model) postpone(sel *core.Message) tea.Cmd {
	loc := m.location()
	if !sel.PostponeMoves(m.cfg.Now(), loc) {
		m.setStatus(core.PostponeNoEffect(sel.SendDate.In(loc).Format(dayLayout)), true)
		return nil
	}
	m.setStatus("Postponing…", false)
	id, before := sel.ID, sel.SendDate
	return func() tea.Msg {
		msg, err := m.cfg.Messages.Postpone(m.cfg.Ctx, id)
		verb := ""
		if err == nil {
			if verb = core.PostponedTo(msg.SendDate.In(loc).Format(dayLayout)); msg.SendDate.Equal(before) {
				verb = core.PostponeNoEffect(msg.SendDate.In(loc).Format(dayLayout))
			}
		}
		return doneMsg{verb: verb, id: id, message: msg, err: err}
	}
}

func (m *Model) setActive(id string, active bool) tea.Cmd {
	verb := "The message is paused."
	if active {
		verb = "The message is on again."
	}
	return m.change(verb, id, func() (*core.Message, error) {
		return m.cfg.Messages.Update(m.cfg.Ctx, id, core.MessageUpdate{IsActive: &active})
	})
}

func (m *Model) remove(id string) tea.Cmd {
	return m.change("The message is deleted.", id, func() (*core.Message, error) {
		return nil, m.cfg.Messages.Delete(m.cfg.Ctx, id)
	})
}

func (m *Model) create(in core.MessageInput, job *sealJob) tea.Cmd {
	return func() tea.Msg {
		if job != nil {
			l, err := job.letter()
			if err != nil {
				return doneMsg{fromForm: true, err: err}
			}
			in.Sealed = l
		}
		msg, err := m.cfg.Messages.Create(m.cfg.Ctx, in)
		return doneMsg{verb: "The message is saved.", message: msg, created: true, fromForm: true, err: err}
	}
}

// update saves the form's changes to message id. newPassphrase: the letter
// is sealed again with another passphrase than the one that opened it,
// which its files, sealed with the old one, would no longer open with: the
// save is refused while it has any (as the web dialog does).
func (m *Model) update(id string, up core.MessageUpdate, job *sealJob, newPassphrase bool) tea.Cmd {
	return func() tea.Msg {
		if newPassphrase && m.cfg.Files != nil {
			files, err := m.cfg.Files.ListFiles(m.cfg.Ctx, id)
			if err != nil {
				return doneMsg{fromForm: true, id: id, err: err}
			}
			if slices.ContainsFunc(files, func(f File) bool { return f.ClientSealed }) {
				return doneMsg{fromForm: true, id: id, err: core.Errorf(core.EValidation, errFilesOfOldPassphrase)}
			}
		}
		if job != nil {
			l, err := job.letter()
			if err != nil {
				return doneMsg{fromForm: true, id: id, err: err}
			}
			up.Sealed = l
		}
		msg, err := m.cfg.Messages.Update(m.cfg.Ctx, id, up)
		return doneMsg{verb: "The message is saved.", id: id, message: msg, fromForm: true, err: err}
	}
}

// errFilesOfOldPassphrase refuses a new passphrase over sealed files.
const errFilesOfOldPassphrase = "Remove the files first: they are sealed with the passphrase that opened the letter and would not open with the new one. Or keep that passphrase."

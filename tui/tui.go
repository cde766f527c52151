// Package tui is the terminal app of an author's messages: a bubbletea
// model over core.Messages and core.Account, whichever implementation cmd
// gives it (the services over the store, web.APIClient over the API or over
// the admin socket). Every call runs in a tea.Cmd; the live list follows
// Messages.Follow.
package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// Config is what the app talks to.
type Config struct {
	Messages core.Messages
	Account  core.Account
	// Ctx acts for the user (the services over the store read who acts
	// from it; the clients of the API know it already).
	Ctx context.Context
	// Emails renders the preview of the recipient's email; nil: the body
	// alone.
	Emails core.Emails
	// DraftPath is the file of the unsent draft; "": drafts are not kept.
	DraftPath string
	// Where says where the messages live, in the header (a server's
	// address, or "local store").
	Where string
	// Now is the clock of the days left; nil: time.Now.
	Now func() time.Time
	// Retry is the wait before following the list again after it ended;
	// zero: 5 s.
	Retry time.Duration
	// Files are the messages' files (f on the list); nil: not offered.
	Files Files
}

type page int

const (
	pageList page = iota
	pageForm
	pagePreview // a text read from the server: the emails, the timeline
	pageHold
	pageSeal  // the form's seal: a passphrase asked, or the letter opened
	pageFiles // a message's files: attach, remove
)

// Model is the app's root: the page shown, the list, the form, and what
// the status line says.
type Model struct {
	cfg    Config
	keys   keyMap
	styles styles
	help   help.Model
	width  int
	height int

	page     page
	user     *core.SessionUser
	list     listView
	loaded   bool
	form     formView
	preview  previewView
	textSeq  int  // the text page last opened
	fromForm bool // the text page is the form's preview: esc goes back to it
	hold     holdView
	seal     sealView
	files    filesView
	moreKeys bool          // the help line shows the second row of keys
	confirm  *core.Message // asked before delete
	offered  *Draft        // a draft found at start, offered again
	drafts   *drafts
	draftSeq int
	lists    <-chan core.MessageList // the live list
	// following: a live list is open or about to be; stayDown: it ended
	// in a way a retry would not mend (the identity no longer holds,
	// another window took its place), until the user reloads.
	following, stayDown bool

	status    string
	statusErr bool
	// unreachable: the status is the server not answering, which the next
	// list that arrives ends.
	unreachable bool
}

// New returns the app over cfg.
func New(cfg Config) *Model {
	if cfg.Ctx == nil {
		cfg.Ctx = context.Background()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 5 * time.Second
	}
	m := &Model{cfg: cfg, keys: newKeyMap(), help: help.New(), drafts: &drafts{path: cfg.DraftPath},
		width: 80, height: 24}
	m.setTheme(true)
	m.status = loading
	return m
}

func (m *Model) setTheme(dark bool) {
	m.styles = newStyles(dark)
	m.help.Styles = m.styles.Help
	m.help.ShortSeparator = "  "
	if m.page == pageForm {
		m.form.setStyles(m.styles)
	}
}

// Init asks the terminal for its background, opens the live list and reads
// the draft of an earlier run.
func (m *Model) Init() tea.Cmd {
	m.following = true
	return tea.Batch(tea.RequestBackgroundColor, m.follow(), m.drafts.load())
}

// refollow opens the live list again unless one is open.
func (m *Model) refollow() tea.Cmd {
	if m.following {
		return nil
	}
	m.following, m.stayDown = true, false
	return m.follow()
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
		return m, nil
	case followMsg:
		if msg.err != nil {
			m.fail(msg.err)
			m.following = false
			switch core.ErrorCode(msg.err) {
			case core.EInvalidToken, core.EInsufficientScope:
				return m, nil // trying again would not help
			}
			return m, m.retryLater()
		}
		m.lists = msg.lists
		return m, waitList(msg.lists)
	case listMsg:
		return m, m.gotList(msg)
	case retryMsg:
		return m, m.refollow()
	case allMsg:
		if msg.err != nil {
			m.fail(msg.err)
			return m, nil
		}
		m.showList(msg.messages)
		return m, nil
	case meMsg:
		if msg.err == nil {
			m.setUser(msg.user)
		}
		return m, nil
	case doneMsg:
		return m, m.done(msg)
	case textMsg:
		m.gotText(msg)
		return m, nil
	case openedMsg:
		m.gotOpened(msg)
		return m, nil
	case heldMsg:
		return m, m.gotHold(msg)
	case filesMsg:
		m.gotFiles(msg)
		return m, nil
	case uploadMsg:
		return m, m.gotUpload(msg)
	case fileGoneMsg:
		return m, m.gotFileGone(msg)
	case passCheckedMsg:
		return m, m.gotPassChecked(msg)
	case sealedReadyMsg:
		return m, m.gotSealedReady(msg)
	case savedMsg:
		m.gotSaved(msg)
		return m, nil
	case draftLoadedMsg:
		if msg.draft != nil && m.page == pageList {
			m.offered = msg.draft
		}
		return m, nil
	case draftSavedMsg:
		if msg.err != nil {
			m.setStatus("The draft could not be kept: "+msg.err.Error(), true)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	switch m.page {
	case pageForm:
		cmd, _ := m.form.Update(msg, m.keys)
		return m, cmd
	case pageHold:
		var cmd tea.Cmd
		m.hold.date, cmd = m.hold.date.Update(msg)
		return m, cmd
	case pageSeal:
		return m, m.seal.update(msg)
	case pageFiles:
		var cmd tea.Cmd
		if m.files.askPass {
			m.files.passIn, cmd = m.files.passIn.Update(msg)
			return m, cmd
		}
		m.files.path, cmd = m.files.path.Update(msg)
		return m, cmd
	}
	return m, nil
}

// gotList takes one value of the live list. A first page that is full means
// more pages: the whole list is read (and shown) then.
func (m *Model) gotList(msg listMsg) tea.Cmd {
	if msg.ended {
		m.following = false
		if m.stayDown {
			return nil
		}
		return m.retryLater()
	}
	l := msg.list
	if l.Err != nil {
		m.fail(l.Err)
		switch core.ErrorCode(l.Err) {
		case core.EInvalidToken, core.EStreamReplaced, core.EInsufficientScope:
			m.stayDown = true // the help line offers r reload
		}
		return waitList(m.lists) // the channel closes next
	}
	if l.User != nil {
		m.setUser(l.User)
	}
	next := waitList(m.lists)
	if len(l.Messages) >= core.DefaultPageSize {
		if !m.loaded || len(m.list.messages) < len(l.Messages) {
			m.showList(l.Messages)
		}
		return tea.Batch(next, m.loadAll())
	}
	m.showList(l.Messages)
	return next
}

func (m *Model) showList(ms []*core.Message) {
	m.list.set(ms)
	// A list that arrives ends "Loading…" and an unreachable server's
	// error; the plan line says how many.
	if !m.loaded || m.status == loading || m.unreachable {
		m.setStatus("", false)
	}
	m.loaded = true
}

const loading = "Loading your messages…"

// fail shows an error in the status line: the server's message, or what
// did not answer. A token without the scope a key needs (one made in the
// web app as read-only) is told, in one line, how to get one that may.
func (m *Model) fail(err error) {
	s := core.ErrorMessageOrText(err)
	if core.ErrorCode(err) == core.EInsufficientScope {
		s = lacksScope(s)
	}
	m.setStatus(s, true)
	m.unreachable = core.ErrorCode(err) == core.EUnavailable
}

// lacksScope is the status line for the server's auth/insufficient-scope
// message, which names the scope in quotes: short enough for 80 columns.
func lacksScope(message string) string {
	scope := "a scope it needs"
	if _, rest, ok := strings.Cut(message, `"`); ok {
		if name, _, ok := strings.Cut(rest, `"`); ok && name != "" {
			scope = `the "` + name + `" scope`
		}
	}
	return "Your token lacks " + scope + ": run sendlater login again."
}

func (m *Model) setStatus(s string, isErr bool) {
	m.status, m.statusErr, m.unreachable = s, isErr, false
}

func (m *Model) done(msg doneMsg) tea.Cmd {
	if msg.fromForm && (m.page == pageForm || m.page == pageSeal) {
		m.page = pageForm
		m.form.saving = false
		if msg.err != nil {
			var e *core.Error
			switch {
			case errors.As(msg.err, &e) && e.Code == core.EValidation:
				m.form.setErrors(e.Fields)
			case errors.As(msg.err, &e) && e.Code == core.EPlanLimit && strings.Contains(e.Message, "recipient"):
				m.form.problem = e.Message
			case errors.As(msg.err, &e) && e.Code == core.EPlanLimit:
				m.form.problem = upgrade(m.user)
			}
			m.fail(msg.err)
			return nil
		}
		m.page = pageList
		m.list.put(msg.message)
		if ws := msg.message.Warnings; len(ws) > 0 {
			m.setStatus(savedWithWarnings(ws), true)
		} else {
			m.setStatus(msg.verb, false)
		}
		m.draftSeq++
		return tea.Batch(m.drafts.remove(m.draftSeq), m.me())
	}
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	if msg.keep {
		m.setStatus(msg.verb, false)
		return nil
	}
	if msg.message == nil {
		m.list.drop(msg.id)
	} else {
		m.list.put(msg.message)
	}
	m.setStatus(msg.verb, false)
	return m.me()
}

// savedWithWarnings is the status line of a message saved with warnings
// (a recipient domain that receives no email): they stand out as an
// error would, since the author should act on them.
func savedWithWarnings(ws []core.Warning) string {
	s := "The message is saved, but:"
	for _, w := range ws {
		s += " " + w.Message
	}
	return s
}

// setUser takes the session user as it is now; an open form follows its
// plan's recipient limit.
func (m *Model) setUser(u *core.SessionUser) {
	m.user = u
	m.form.limit = m.recipientLimit()
	m.form.canSeal = m.maySeal()
}

// upgrade explains the plan limit (SPEC.md: the Add Message button's
// tooltip is "Upgrade your plan").
func upgrade(u *core.SessionUser) string {
	limit := 1
	if u != nil && u.MessageLimit > 0 {
		limit = u.MessageLimit
	}
	return fmt.Sprintf("Upgrade your plan to add more messages: this plan keeps %d.", limit)
}

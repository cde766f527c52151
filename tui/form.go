package tui

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// The form's fields, in tab order: the title, each recipient's name and
// address, the interval, the message. Their names are the API's, under
// which the server's validation messages come back (recipients.go).

var intervals = []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M}

// formView creates a message (editing nil) or edits one.
type formView struct {
	editing  *core.Message
	title    textinput.Model
	rows     []recipientRow // 1 to core.MaxRecipients
	limit    int            // the recipients the plan allows
	interval core.Interval
	body     textarea.Model
	focus    int
	errors   map[string]string // the validation messages, by field
	problem  string            // what refused the form as a whole (a plan limit)
	saving   bool
	sealing  bool // the save seals the letter first
	dark     bool
	width    int
	height   int // the lines the form has, under the page's title
	top      int // the first of its lines shown, when they do not all fit

	// Sealing (seal.go): seal is the passphrase and hint the letter is
	// sealed with on save, nil for text; locked, a sealed message edited
	// and not opened (its text is not here); opened, the letter as it was
	// opened; sealID, the id a seal binds to (the edited message's, or one
	// made for the new message); canSeal, the plan seals (or the message
	// is sealed already).
	seal    *sealChoice
	locked  bool
	opened  *openedLetter
	sealID  string
	canSeal bool
	// files: ctrl+f opens the files of the message being edited.
	files bool
}

func newForm(d Draft, editing *core.Message, limit int, st styles) formView {
	f := formView{editing: editing, interval: core.Interval(d.Interval), limit: max(limit, 1), dark: st.dark}
	if !f.interval.Valid() {
		f.interval = core.DefaultInterval
	}
	f.title = newInput(d.Title, "", st.dark)
	for _, r := range d.recipients() {
		f.rows = append(f.rows, newRow(r.Name, r.Address, st.dark))
	}
	f.body = textarea.New()
	f.body.ShowLineNumbers = false
	f.body.Prompt = "│ "
	f.body.CharLimit = 0
	f.body.MaxHeight = 0
	f.body.SetValue(d.Body)
	f.sealID = core.NewID()
	if editing != nil {
		f.sealID = editing.ID
	}
	if editing != nil && editing.IsSealed() {
		// Its text is not here until ctrl+l opens it with the passphrase;
		// it stays sealed meanwhile.
		f.locked = true
		f.body.SetValue("")
		f.body.Placeholder = "Sealed with a passphrase: ctrl+l opens the letter here to read and edit it."
	}
	f.setStyles(st)
	f.focusOn(0)
	return f
}

func newInput(v, placeholder string, dark bool) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetValue(v)
	in.SetStyles(textinput.DefaultStyles(dark))
	return in
}

// draftOf is a new form for m's fields.
func draftOf(m *core.Message) Draft {
	d := Draft{ID: m.ID, Title: m.Title, Name: m.Name, Recipient: m.Recipient, Interval: string(m.Interval), Body: m.Text()}
	if rs := m.RecipientList(); len(rs) > 1 {
		for _, r := range rs {
			d.Recipients = append(d.Recipients, DraftRecipient{Name: r.Name, Address: r.Address})
		}
	}
	return d
}

func (f *formView) setStyles(st styles) {
	f.dark = st.dark
	f.title.SetStyles(textinput.DefaultStyles(st.dark))
	for i := range f.rows {
		f.rows[i].name.SetStyles(textinput.DefaultStyles(st.dark))
		f.rows[i].address.SetStyles(textinput.DefaultStyles(st.dark))
	}
	f.body.SetStyles(textarea.DefaultStyles(st.dark))
}

func (f *formView) draft() Draft {
	d := Draft{Title: f.title.Value(), Interval: string(f.interval), Body: f.body.Value()}
	if f.seal != nil || f.locked {
		d.Body = "" // a letter to be sealed is never written to the draft file
	}
	d.Name, d.Recipient = f.rows[0].name.Value(), f.rows[0].address.Value()
	if len(f.rows) > 1 {
		for _, r := range f.rows {
			d.Recipients = append(d.Recipients, DraftRecipient{Name: r.name.Value(), Address: r.address.Value()})
		}
	}
	if f.editing != nil {
		d.ID = f.editing.ID
	}
	return d
}

// The focus: 0 the title, then two per recipient row, then the interval
// and the message.
func (f *formView) fields() int        { return 3 + 2*len(f.rows) }
func (f *formView) intervalField() int { return 1 + 2*len(f.rows) }
func (f *formView) bodyField() int     { return 2 + 2*len(f.rows) }

// row is the recipient row the focus is on, or -1.
func (f *formView) row() int {
	if f.focus >= 1 && f.focus < f.intervalField() {
		return (f.focus - 1) / 2
	}
	return -1
}

// formLines are the form's lines besides the recipient rows and the
// message box: 3 for the title, 1 for the recipients' label, 3 for the
// interval, 3 for the message's label, its error and the delivery date, 1
// for what refused the form (kept free, so that a refusal fits too).
const formLines = 11

// minBodyRows is the message box's least height (SPEC.md: 4 rows).
const minBodyRows = 4

// SetSize gives the message box what the other fields leave of height
// (the form's lines, under the page's title), at least minBodyRows; when
// the form is taller than height then (many recipients, a small terminal),
// it scrolls (window).
func (f *formView) SetSize(width, height int) {
	f.width, f.height = width, height
	f.title.SetWidth(max(width-4, 10))
	nw, aw := f.rowWidths()
	for i := range f.rows {
		f.rows[i].name.SetWidth(nw)
		f.rows[i].address.SetWidth(aw)
	}
	f.body.SetWidth(max(width-2, 10))
	f.body.SetHeight(max(height-formLines-f.rowsHeight(), minBodyRows))
}

func (f *formView) focusOn(i int) tea.Cmd {
	f.focus = (i + f.fields()) % f.fields()
	f.title.Blur()
	for j := range f.rows {
		f.rows[j].name.Blur()
		f.rows[j].address.Blur()
	}
	f.body.Blur()
	if in := f.input(f.focus); in != nil {
		return in.Focus()
	}
	if f.focus == f.bodyField() {
		return f.body.Focus()
	}
	return nil
}

// input is the typed field at focus i, or nil.
func (f *formView) input(i int) *textinput.Model {
	switch {
	case i == 0:
		return &f.title
	case i < f.intervalField():
		r := &f.rows[(i-1)/2]
		if (i-1)%2 == 0 {
			return &r.name
		}
		return &r.address
	}
	return nil
}

// Update handles a key the root did not take; changed tells whether a
// field's value changed (the draft is to be saved).
func (f *formView) Update(msg tea.Msg, keys keyMap) (cmd tea.Cmd, changed bool) {
	before := f.draft()
	if k, ok := msg.(tea.KeyPressMsg); ok {
		inBody := f.focus == f.bodyField()
		switch {
		case k.String() == "tab" || k.String() == "shift+tab" ||
			(!inBody && (k.String() == "down" || k.String() == "up")):
			by := 1
			if k.String() == "shift+tab" || k.String() == "up" {
				by = -1
			}
			return f.focusOn(f.focus + by), false
		case !inBody && k.String() == "ctrl+n":
			return f.addRow(), true
		case !inBody && k.String() == "ctrl+r":
			return f.removeRow(), true
		case f.focus == f.intervalField() && (k.String() == "left" || k.String() == "h" || k.String() == "right" || k.String() == "l"):
			by := 1
			if k.String() == "left" || k.String() == "h" {
				by = -1
			}
			i := slices.Index(intervals, f.interval)
			f.interval = intervals[(i+by+len(intervals))%len(intervals)]
			return nil, true
		}
	}
	if in := f.input(f.focus); in != nil {
		*in, cmd = in.Update(msg)
	} else if f.focus == f.bodyField() && !f.locked {
		f.body, cmd = f.body.Update(msg)
	}
	return cmd, !f.draft().same(before)
}

// input is what a new message sends: one recipient as name and recipient
// (as API.md has it), several as the list.
func (f *formView) messageInput() core.MessageInput {
	d := f.draft()
	in := core.MessageInput{Title: d.Title, Body: d.Body, Interval: f.interval}
	if f.seal != nil {
		in.ID = f.sealID // the letter is sealed for it (sealJob)
	}
	if rs := f.recipientInputs(); len(rs) > 1 {
		in.Recipients = rs
	} else {
		in.Name, in.Recipient = rs[0].Name, rs[0].Address
	}
	return in
}

// changes is what an edit sends: the fields that differ, the interval only
// when another was picked (SPEC.md: only then is the date computed again).
func (f *formView) changes() core.MessageUpdate {
	d, m := f.draft(), f.editing
	var up core.MessageUpdate
	set := func(dst **string, now, was string) {
		if now != was {
			*dst = &now
		}
	}
	set(&up.Title, d.Title, m.Title)
	switch text := f.body.Value(); {
	case f.locked, f.seal != nil:
		// Left as it is, or sealed anew by the save (sealJob).
	case m.IsSealed():
		up.Body = &text // opened, and the seal removed: text again
	default:
		set(&up.Body, text, m.Text())
	}
	was, now := recipientsOf(m), f.recipientInputs()
	switch {
	case len(was) == 1 && len(now) == 1:
		set(&up.Name, now[0].Name, was[0].Name)
		set(&up.Recipient, now[0].Address, was[0].Address)
	case !slices.Equal(was, now):
		up.Recipients = &now
	}
	if f.interval != m.Interval {
		iv := f.interval
		up.Interval = &iv
	}
	return up
}

// sealLabel says, beside the message's label, whether it is sealed and
// what ctrl+l does.
func (f *formView) sealLabel() string {
	switch {
	case f.locked:
		return "sealed: ctrl+l opens it"
	case f.seal != nil:
		return "sealed on save · ctrl+l change"
	case f.canSeal:
		return "ctrl+l seal with a passphrase"
	}
	return "sealing: Pro and Business plans"
}

// needsSeal tells whether a save seals the letter: it is to be sealed and
// is not a sealed letter opened and left as it was.
func (f *formView) needsSeal() bool {
	return f.seal != nil && (f.opened == nil || f.opened.text != f.body.Value() || f.opened.seal != *f.seal)
}

// sealJob is the seal a save or a preview makes, nil when none.
func (f *formView) sealJob() *sealJob {
	if !f.needsSeal() {
		return nil
	}
	return &sealJob{choice: *f.seal, id: f.sealID, body: f.body.Value()}
}

// sealJob seals a letter in a tea.Cmd (Argon2id takes a while).
type sealJob struct {
	choice   sealChoice
	id, body string
}

func (j *sealJob) letter() (*core.SealedLetter, error) { return sealLetter(j.choice, j.id, j.body) }

// deliveryDate is when the message will go: now plus the interval for a new
// one or a new interval, else its sendDate.
func (f *formView) deliveryDate(now time.Time, loc *time.Location) time.Time {
	if f.editing != nil && f.interval == f.editing.Interval {
		return f.editing.SendDate
	}
	return core.AddMonths(now, f.interval.Months(), loc)
}

var intervalNames = map[core.Interval]string{core.Interval1M: "1 month", core.Interval6M: "6 months", core.Interval12M: "12 months"}

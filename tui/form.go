package tui

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// The form's fields, in tab order; their names are the API's field names,
// under which the server's validation messages come back.
const (
	fieldTitle = iota
	fieldName
	fieldRecipient
	fieldInterval
	fieldBody
	fieldCount
)

var fieldKeys = [fieldCount]string{"title", "name", "recipient", "interval", "message"}

var fieldLabels = [fieldCount]string{"Title (private, never in the email)", "Recipient name", "Recipient email", "Deliver after", "Message"}

var intervals = []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M}

// formView creates a message (editing nil) or edits one.
type formView struct {
	editing  *core.Message
	inputs   [fieldInterval]textinput.Model // title, name, recipient; interval is not typed
	interval core.Interval
	body     textarea.Model
	focus    int
	errors   map[string]string // the validation messages, by field
	problem  string            // what refused the form as a whole (the plan limit)
	saving   bool
	width    int
}

func newForm(d Draft, editing *core.Message, st styles) formView {
	f := formView{editing: editing, interval: core.Interval(d.Interval)}
	if !f.interval.Valid() {
		f.interval = core.DefaultInterval
	}
	for i, v := range []string{d.Title, d.Name, d.Recipient} {
		in := textinput.New()
		in.Prompt = ""
		in.SetValue(v)
		f.inputs[i] = in
	}
	f.inputs[fieldRecipient].Placeholder = "name@example.com"
	f.body = textarea.New()
	f.body.ShowLineNumbers = false
	f.body.Prompt = "│ "
	f.body.CharLimit = 0
	f.body.MaxHeight = 0
	f.body.SetValue(d.Body)
	f.setStyles(st)
	f.focusOn(fieldTitle)
	return f
}

// draftOf is a new form for m's fields.
func draftOf(m *core.Message) Draft {
	return Draft{ID: m.ID, Title: m.Title, Name: m.Name, Recipient: m.Recipient, Interval: string(m.Interval), Body: m.Body}
}

func (f *formView) setStyles(st styles) {
	for i := range f.inputs {
		f.inputs[i].SetStyles(textinput.DefaultStyles(st.dark))
	}
	f.body.SetStyles(textarea.DefaultStyles(st.dark))
}

func (f *formView) draft() Draft {
	d := Draft{Title: f.inputs[fieldTitle].Value(), Name: f.inputs[fieldName].Value(),
		Recipient: f.inputs[fieldRecipient].Value(), Interval: string(f.interval), Body: f.body.Value()}
	if f.editing != nil {
		d.ID = f.editing.ID
	}
	return d
}

// SetSize gives the message box what the other fields leave of height
// (at least the 4 rows of SPEC.md).
func (f *formView) SetSize(width, height int) {
	f.width = width
	for i := range f.inputs {
		f.inputs[i].SetWidth(max(width-4, 10))
	}
	f.body.SetWidth(max(width-2, 10))
	// The page's title, 3 lines per typed field, 3 for the interval, 2 for
	// the message's label and error, 2 for the delivery date and the form's
	// problem: 17 lines; SPEC.md's message box has at least 4 rows.
	f.body.SetHeight(max(height-17, 4))
}

func (f *formView) focusOn(i int) tea.Cmd {
	f.focus = (i + fieldCount) % fieldCount
	for j := range f.inputs {
		f.inputs[j].Blur()
	}
	f.body.Blur()
	switch {
	case f.focus < fieldInterval:
		return f.inputs[f.focus].Focus()
	case f.focus == fieldBody:
		return f.body.Focus()
	}
	return nil
}

// Update handles a key the root did not take; changed tells whether a
// field's value changed (the draft is to be saved).
func (f *formView) Update(msg tea.Msg, keys keyMap) (cmd tea.Cmd, changed bool) {
	before := f.draft()
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case k.String() == "tab" || k.String() == "shift+tab" ||
			(f.focus != fieldBody && (k.String() == "down" || k.String() == "up")):
			by := 1
			if k.String() == "shift+tab" || k.String() == "up" {
				by = -1
			}
			return f.focusOn(f.focus + by), false
		case f.focus == fieldInterval && (k.String() == "left" || k.String() == "h" || k.String() == "right" || k.String() == "l"):
			by := 1
			if k.String() == "left" || k.String() == "h" {
				by = -1
			}
			i := slices.Index(intervals, f.interval)
			f.interval = intervals[(i+by+len(intervals))%len(intervals)]
			return nil, true
		}
	}
	switch {
	case f.focus < fieldInterval:
		f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	case f.focus == fieldBody:
		f.body, cmd = f.body.Update(msg)
	}
	return cmd, f.draft() != before
}

// input is what a new message sends.
func (f *formView) input() core.MessageInput {
	d := f.draft()
	return core.MessageInput{Title: d.Title, Name: d.Name, Recipient: d.Recipient, Body: d.Body, Interval: f.interval}
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
	set(&up.Name, d.Name, m.Name)
	set(&up.Recipient, d.Recipient, m.Recipient)
	set(&up.Body, d.Body, m.Body)
	if f.interval != m.Interval {
		iv := f.interval
		up.Interval = &iv
	}
	return up
}

// deliveryDate is when the message will go: now plus the interval for a new
// one or a new interval, else its sendDate.
func (f *formView) deliveryDate(now time.Time, loc *time.Location) time.Time {
	if f.editing != nil && f.interval == f.editing.Interval {
		return f.editing.SendDate
	}
	return core.AddMonths(now, f.interval.Months(), loc)
}

func (f *formView) View(st styles, now time.Time, loc *time.Location) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	fieldErr := func(i int) {
		if e := f.errors[fieldKeys[i]]; e != "" {
			line("  " + st.Error.Render(e))
		} else {
			line("")
		}
	}
	label := func(i int) string {
		mark := "  "
		if f.focus == i {
			mark = "› "
		}
		return st.Label.Render(mark + fieldLabels[i])
	}
	for i := range f.inputs {
		line(label(i))
		line("  " + f.inputs[i].View())
		fieldErr(i)
	}
	line(label(fieldInterval))
	var opts []string
	for _, iv := range intervals {
		name := map[core.Interval]string{core.Interval1M: "1 month", core.Interval6M: "6 months", core.Interval12M: "12 months"}[iv]
		if iv == f.interval {
			opts = append(opts, st.Selected.Render(" "+name+" "))
		} else {
			opts = append(opts, " "+name+" ")
		}
	}
	line("  " + strings.Join(opts, " "))
	fieldErr(fieldInterval)
	line(label(fieldBody))
	line(f.body.View())
	fieldErr(fieldBody)
	line("  The message will be delivered on " + f.deliveryDate(now, loc).In(loc).Format("Monday, January 2, 2006") + ".")
	switch {
	case f.problem != "":
		b.WriteString("  " + st.Warn.Render(f.problem))
	case f.saving:
		b.WriteString("  " + st.Dim.Render("Saving…"))
	}
	return b.String()
}

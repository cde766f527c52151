package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// The form's recipient rows: 1 to core.MaxRecipients, as many as the plan
// allows (core.RecipientLimit), each a name and an address. ctrl+n adds a
// row below the one in focus, ctrl+r removes it. The server's validation
// messages come back keyed as the API names the fields: the first row's
// name and recipient, the others' recipients[i].name and
// recipients[i].recipient.

// DraftRecipient is one recipient row of a draft.
type DraftRecipient struct {
	Name    string `json:"name"`
	Address string `json:"recipient"`
}

// recipients are the draft's rows: its list, or the one name and
// recipient (a draft of one recipient, or of before the list).
func (d Draft) recipients() []DraftRecipient {
	if len(d.Recipients) > 0 {
		return d.Recipients
	}
	return []DraftRecipient{{Name: d.Name, Address: d.Recipient}}
}

// same reports whether two drafts hold the same fields.
func (d Draft) same(o Draft) bool {
	return d.ID == o.ID && d.Title == o.Title && d.Name == o.Name && d.Recipient == o.Recipient &&
		d.Interval == o.Interval && d.Body == o.Body && slices.Equal(d.Recipients, o.Recipients)
}

type recipientRow struct {
	name, address textinput.Model
}

func newRow(name, address string, dark bool) recipientRow {
	return recipientRow{name: newInput(name, "Name", dark), address: newInput(address, "name@example.com", dark)}
}

// rowWidths split a row between the name (2 parts) and the address (3).
func (f *formView) rowWidths() (name, address int) {
	w := max(f.width-6, 20)
	return w * 2 / 5, w - w*2/5
}

// addRow adds an empty row below the one in focus (or last) and focuses
// it; beyond the plan it explains the limit instead.
func (f *formView) addRow() tea.Cmd {
	if len(f.rows) >= f.limit {
		f.problem = recipientLimit(f.limit)
		return nil
	}
	at := f.row() + 1
	if at <= 0 {
		at = len(f.rows)
	}
	f.problem = ""
	f.rows = append(f.rows[:at:at], append([]recipientRow{newRow("", "", f.dark)}, f.rows[at:]...)...)
	f.errors = nil // the rows' keys moved
	f.SetSize(f.width, f.height)
	return f.focusOn(1 + 2*at)
}

// removeRow removes the row in focus; the last one stays.
func (f *formView) removeRow() tea.Cmd {
	r := f.row()
	if r < 0 || len(f.rows) == 1 {
		return nil
	}
	f.rows = append(f.rows[:r:r], f.rows[r+1:]...)
	f.errors, f.problem = nil, ""
	f.SetSize(f.width, f.height)
	return f.focusOn(1 + 2*min(r, len(f.rows)-1))
}

// recipientLimit explains the plan's limit as the server does.
func recipientLimit(limit int) string {
	if limit <= 1 {
		return fmt.Sprintf("Your plan allows 1 recipient per message; upgrade to Pro for up to %d.", core.MaxRecipients)
	}
	return fmt.Sprintf("A message has at most %d recipients.", limit)
}

func (f *formView) recipientInputs() []core.RecipientInput {
	out := make([]core.RecipientInput, len(f.rows))
	for i, r := range f.rows {
		out[i] = core.RecipientInput{Name: r.name.Value(), Address: r.address.Value()}
	}
	return out
}

// recipientsOf is m's list as its author wrote it.
func recipientsOf(m *core.Message) []core.RecipientInput {
	rs := m.RecipientList()
	out := make([]core.RecipientInput, len(rs))
	for i, r := range rs {
		out[i] = core.RecipientInput{Name: r.Name, Address: r.Address}
	}
	return out
}

// rowErrorKeys are the fields of row i in the server's validation errors.
func rowErrorKeys(i int) (name, address string) {
	if i == 0 {
		return "name", "recipient"
	}
	return fmt.Sprintf("recipients[%d].name", i), fmt.Sprintf("recipients[%d].recipient", i)
}

// rowErrors are the server's messages about row i, on one line ("" none).
func (f *formView) rowErrors(i int) string {
	nk, ak := rowErrorKeys(i)
	var errs []string
	for _, k := range []string{nk, ak} {
		if e := f.errors[k]; e != "" {
			errs = append(errs, e)
		}
	}
	if i == len(f.rows)-1 && f.errors["recipients"] != "" {
		errs = append(errs, f.errors["recipients"])
	}
	return strings.Join(errs, " · ")
}

// rowsHeight is the lines of the rows: one each, and one more under a row
// with errors.
func (f *formView) rowsHeight() int {
	n := len(f.rows)
	for i := range f.rows {
		if f.rowErrors(i) != "" {
			n++
		}
	}
	return n
}

// setErrors shows the server's validation messages (nil: none), the
// message box giving way to their lines.
func (f *formView) setErrors(errs map[string]string) {
	f.errors = errs
	f.SetSize(f.width, f.height)
}

// viewRows adds the label and a line per row, with its errors under it,
// marking each row's lines as a field (the first's with the label).
func (f *formView) viewRows(lines []string, st styles, label func(bool, string) string, field func(i, start, end int)) []string {
	head := "Recipient: name and email"
	switch {
	case len(f.rows) > f.limit:
		head = fmt.Sprintf("Recipients: name and email (%d; your plan allows %d · ctrl+r remove)", len(f.rows), f.limit)
	case f.limit > 1:
		head = fmt.Sprintf("Recipients: name and email (%d of up to %d · ctrl+n add · ctrl+r remove)", len(f.rows), f.limit)
	case f.limit == 1:
		head += fmt.Sprintf(" (Pro: up to %d recipients)", core.MaxRecipients)
	}
	start := len(lines)
	lines = append(lines, label(false, head))
	for i, r := range f.rows {
		mark := "  "
		if f.row() == i {
			mark = "› "
		}
		lines = append(lines, st.Label.Render(mark)+r.name.View()+"  "+r.address.View())
		if errs := f.rowErrors(i); errs != "" {
			lines = append(lines, "  "+st.Error.Render(errs))
		}
		field(1+2*i, start, len(lines))
		field(2+2*i, start, len(lines))
		start = len(lines)
	}
	return lines
}

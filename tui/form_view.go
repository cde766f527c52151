package tui

import (
	"slices"
	"strings"
	"time"
)

// View is the form in its height: all of it when it fits, else the window
// of it that holds the field in focus, with a line saying there is more
// above or below.
func (f *formView) View(st styles, now time.Time, loc *time.Location) string {
	lines, from, to := f.content(st, now, loc)
	return strings.Join(f.window(lines, from, to, st), "\n")
}

// content is every line of the form, and the lines [from, to) of the field
// in focus (the first takes the lines above it, the last those below it:
// the delivery date and what refused the form).
func (f *formView) content(st styles, now time.Time, loc *time.Location) (lines []string, from, to int) {
	errLine := func(key string) {
		if e := f.errors[key]; e != "" {
			lines = append(lines, "  "+st.Error.Render(e))
		} else {
			lines = append(lines, "")
		}
	}
	label := func(focused bool, s string) string {
		mark := "  "
		if focused {
			mark = "› "
		}
		return st.Label.Render(mark + s)
	}
	// field marks the lines [start, end) as those of field i.
	field := func(i, start, end int) {
		if f.focus == i {
			from, to = start, end
		}
	}
	lines = append(lines, label(f.focus == 0, "Title (private, never in the email)"), "  "+f.title.View())
	errLine("title")
	field(0, 0, len(lines))
	lines = f.viewRows(lines, st, label, field)
	start := len(lines)
	lines = append(lines, label(f.focus == f.intervalField(), "Deliver after"))
	var opts []string
	for _, iv := range intervals {
		if iv == f.interval {
			opts = append(opts, st.Selected.Render(" "+intervalNames[iv]+" "))
		} else {
			opts = append(opts, " "+intervalNames[iv]+" ")
		}
	}
	lines = append(lines, "  "+strings.Join(opts, " "))
	errLine("interval")
	field(f.intervalField(), start, len(lines))
	start = len(lines)
	files := ""
	if f.files {
		files = " · ctrl+f files"
	}
	lines = append(lines, label(f.focus == f.bodyField(), "Message")+st.Dim.Render(" · "+f.sealLabel()+files))
	lines = append(lines, strings.Split(f.body.View(), "\n")...)
	errLine("message")
	lines = append(lines, "  The message will be delivered on "+f.deliveryDate(now, loc).In(loc).Format("Monday, January 2, 2006")+".")
	switch {
	case f.problem != "":
		lines = append(lines, "  "+st.Warn.Render(f.problem))
	case f.saving && f.sealing:
		lines = append(lines, "  "+st.Dim.Render("Sealing and saving…"))
	case f.saving:
		lines = append(lines, "  "+st.Dim.Render("Saving…"))
	}
	field(f.bodyField(), start, len(lines))
	return lines, from, to
}

// window is the form's height of lines, from f.top, moved the least that
// shows the lines [from, to) of the field in focus (its start, when it is
// taller than the window). Its first line says there is more above when
// there is, its last that there is more below.
func (f *formView) window(lines []string, from, to int, st styles) []string {
	h := max(f.height, 3)
	if len(lines) <= h {
		f.top = 0
		return lines
	}
	last := len(lines) - h // the top that shows the end
	// shown is the first and the end of the lines the window at top shows
	// whole, the hints aside.
	shown := func(top int) (first, end int) {
		first, end = top, top+h
		if top > 0 {
			first++
		}
		if top < last {
			end--
		}
		return first, end
	}
	top := min(max(f.top, 0), last)
	if _, end := shown(top); to > end {
		top = min(to-h+1, last)
	}
	if first, _ := shown(top); from < first {
		top = max(from-1, 0)
	}
	f.top = top
	out := slices.Clone(lines[top : top+h])
	if top > 0 {
		out[0] = st.Dim.Render("  ↑ more above · shift+tab")
	}
	if top < last {
		out[h-1] = st.Dim.Render("  ↓ more below · tab")
	}
	return out
}

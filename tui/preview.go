package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// previewView is a page of text read from the server (the emails the
// recipients will get, a message's timeline), scrolled a line at a time.
type previewView struct {
	title         string
	text          []string // the lines as rendered
	lines         []string // wrapped to the width
	top           int
	width, height int
}

func newTextView(title string, lines []string) previewView {
	return previewView{title: title, text: lines}
}

func (p *previewView) SetSize(width, height int) {
	p.width, p.height = width, max(height-1, 1)
	p.lines = p.lines[:0]
	for _, l := range p.text {
		p.lines = append(p.lines, strings.Split(ansi.Wrap(l, max(width-2, 10), " "), "\n")...)
	}
	p.scroll(0)
}

func (p *previewView) scroll(by int) {
	p.top = max(0, min(p.top+by, len(p.lines)-p.height))
}

func (p *previewView) View(st styles) string {
	out := []string{st.Title.Render(p.title)}
	end := min(len(p.lines), p.top+p.height)
	for _, l := range p.lines[p.top:end] {
		out = append(out, "  "+l)
	}
	return strings.Join(out, "\n")
}

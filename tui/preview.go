package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/core"
)

// previewView is the email the recipient will get, as the server's
// templates render it, scrolled a line at a time.
type previewView struct {
	text          []string // the email's lines as rendered
	lines         []string // wrapped to the width
	top           int
	width, height int
}

func newPreview(emails core.Emails, msg *core.Message, user *core.SessionUser, loc *time.Location) previewView {
	author := core.Address{}
	if user != nil {
		author = core.Address{Name: user.Name, Address: user.Email}
	}
	d := core.DeliveryEmail{
		To: core.Address{Name: msg.Name, Address: msg.Recipient}, Author: author, Body: msg.Body,
		WrittenAt: msg.CreatedAt, Location: loc, Date: msg.SendDate,
	}
	head := []string{"To:       " + addr(d.To), "Reply-To: " + addr(author),
		"Date:     " + msg.SendDate.In(loc).Format("Mon, 2 Jan 2006 15:04 MST")}
	text := msg.Body
	if emails != nil {
		if e, err := emails.Delivery(d); err == nil {
			head = append(head, "Subject:  "+e.Subject)
			text = e.Text
		}
	}
	lines := append(head, "")
	lines = append(lines, strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")...)
	return previewView{text: lines}
}

func addr(a core.Address) string {
	if a.Name == "" {
		return "<" + a.Address + ">"
	}
	return a.Name + " <" + a.Address + ">"
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
	out := []string{st.Title.Render("What the recipient will get")}
	end := min(len(p.lines), p.top+p.height)
	for _, l := range p.lines[p.top:end] {
		out = append(out, "  "+l)
	}
	return strings.Join(out, "\n")
}

// Package bounce reads the reports mail systems send back about an email:
// delivery status notifications (RFC 3464, "bounces") and complaint
// feedback reports (ARF, RFC 5965). It turns one into a Report: which
// recipients failed for good (hard), for now (soft), or complained, with
// the remote server's reason, and the Message-ID of the email it is about.
// It parses only: what a report means for a message, a recipient and the
// suppression list is core's.
package bounce

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"slices"
	"strings"
)

// Kind is what a report says of a recipient.
type Kind int

const (
	// Unknown: the report says nothing this package acts on (a delay
	// warning without a failure, a success notice, an unknown format).
	Unknown Kind = iota
	// Soft: delivery failed for now (a full mailbox, a server down, a
	// greylist): 4.x.x statuses and "delayed" actions.
	Soft
	// Hard: delivery failed for good (no such user, no such domain,
	// refused): 5.x.x statuses with a "failed" action.
	Hard
	// Complaint: the recipient marked the email as spam (an ARF report
	// with feedback type abuse, or fraud).
	Complaint
)

func (k Kind) String() string {
	return [...]string{"unknown", "soft", "hard", "complaint"}[k]
}

// Recipient is what a report says of one recipient.
type Recipient struct {
	Address    string // the final recipient, lower-cased
	Original   string // the original recipient, when the report names it
	Kind       Kind
	Action     string // failed, delayed, delivered, relayed, expanded
	Status     string // the enhanced status code, e.g. 5.1.1
	Diagnostic string // the remote server's words, e.g. "550 5.1.1 <x@y>: User unknown"
	RemoteMTA  string
}

// Report is one parsed report.
type Report struct {
	// Type is "delivery-status" or "feedback-report".
	Type       string
	Recipients []Recipient
	// MessageID is the Message-ID of the email the report is about (from
	// the returned message or its headers), without angle brackets; empty
	// when the report does not carry it.
	MessageID string
	// FeedbackType is an ARF report's type (abuse, fraud, …).
	FeedbackType string
	// ReportingMTA names the system that wrote the report.
	ReportingMTA string
	// ReturnPaths are the envelope senders of the email the report is
	// about, as the report quotes them: an ARF report's Original-Mail-From
	// and the returned message's Return-Path, lower-cased, without angle
	// brackets, each once. A report sent to a fixed address (a feedback
	// loop) is known by them.
	ReturnPaths []string
}

// ErrNotAReport is what Parse returns for an email that is neither a
// delivery status notification nor a feedback report.
var ErrNotAReport = errors.New("bounce: not a delivery status notification or feedback report")

// MaxSize is the largest report Parse reads: reports quote the returned
// message, which may be large; the parts that matter come first.
const MaxSize = 1 << 20

// Parse reads one report, a whole email as received (headers and body).
func Parse(r io.Reader) (*Report, error) {
	msg, err := mail.ReadMessage(bufio.NewReader(io.LimitReader(r, MaxSize)))
	if err != nil {
		return nil, ErrNotAReport
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/report" || params["boundary"] == "" {
		return nil, ErrNotAReport
	}
	rep := &Report{Type: strings.ToLower(params["report-type"])}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	found := false
	var returned mail.Header
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			if found {
				break // a truncated returned message: what came before holds
			}
			return nil, ErrNotAReport
		}
		pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch pt {
		case "message/delivery-status", "message/global-delivery-status":
			body, _ := io.ReadAll(io.LimitReader(p, MaxSize))
			rep.Type = "delivery-status"
			rep.parseDSN(body)
			found = true
		case "message/feedback-report":
			body, _ := io.ReadAll(io.LimitReader(p, MaxSize))
			rep.Type = "feedback-report"
			rep.parseARF(body)
			found = true
		case "message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers":
			returned = readReturned(io.LimitReader(p, MaxSize))
		}
	}
	if !found {
		return nil, ErrNotAReport
	}
	if returned != nil {
		for _, v := range returned["Return-Path"] {
			rep.addReturnPath(v)
		}
		rep.MessageID = strings.Trim(strings.TrimSpace(returned.Get("Message-Id")), "<>")
		if rep.Type == "feedback-report" && len(rep.Recipients) == 0 {
			// A report without Original-Rcpt-To: the returned email's To.
			kind := rep.complaintKind()
			if to, err := returned.AddressList("To"); err == nil {
				for _, a := range to {
					rep.Recipients = append(rep.Recipients, Recipient{Address: strings.ToLower(a.Address), Kind: kind})
				}
			}
		}
	}
	return rep, nil
}

// groups splits a delivery-status or feedback-report body into its field
// groups (separated by blank lines), each read as a header.
func groups(body []byte) []textproto.MIMEHeader {
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	var out []textproto.MIMEHeader
	for _, g := range bytes.Split(body, []byte("\n\n")) {
		g = bytes.TrimSpace(g)
		if len(g) == 0 {
			continue
		}
		// A reader of the group's size: the default's 4 KB for each group
		// of a 2 KB report was most of a DSN's garbage.
		h, err := textproto.NewReader(bufio.NewReaderSize(bytes.NewReader(append(g, '\n', '\n')), len(g)+2)).ReadMIMEHeader()
		if err != nil && len(h) == 0 {
			continue
		}
		out = append(out, h)
	}
	return out
}

// typed returns a field like "rfc822; a@b.c" without its type, trimmed.
func typed(v string) string {
	if _, rest, ok := strings.Cut(v, ";"); ok {
		return strings.TrimSpace(rest)
	}
	return strings.TrimSpace(v)
}

func (rep *Report) parseDSN(body []byte) {
	gs := groups(body)
	if len(gs) == 0 {
		return
	}
	rep.ReportingMTA = typed(gs[0].Get("Reporting-Mta"))
	for _, g := range gs[1:] {
		addr := strings.ToLower(strings.Trim(typed(g.Get("Final-Recipient")), "<>"))
		if addr == "" {
			continue
		}
		r := Recipient{
			Address:    addr,
			Original:   strings.ToLower(strings.Trim(typed(g.Get("Original-Recipient")), "<>")),
			Action:     strings.ToLower(strings.TrimSpace(g.Get("Action"))),
			Status:     firstField(g.Get("Status")),
			Diagnostic: unfold(typed(g.Get("Diagnostic-Code"))),
			RemoteMTA:  typed(g.Get("Remote-Mta")),
		}
		r.Kind = classify(r.Action, r.Status)
		rep.Recipients = append(rep.Recipients, r)
	}
}

// classify turns a DSN's action and status into a Kind (RFC 3463: the
// class digit 5 is permanent, 4 transient, 2 success).
func classify(action, status string) Kind {
	switch action {
	case "delivered", "relayed", "expanded":
		return Unknown
	case "delayed":
		return Soft
	}
	switch {
	case strings.HasPrefix(status, "5."):
		if action == "failed" || action == "" {
			return Hard
		}
	case strings.HasPrefix(status, "4."):
		return Soft
	case status == "" && action == "failed":
		return Hard
	}
	return Unknown
}

func (rep *Report) parseARF(body []byte) {
	gs := groups(body)
	if len(gs) == 0 {
		return
	}
	h := gs[0]
	rep.FeedbackType = strings.ToLower(strings.TrimSpace(h.Get("Feedback-Type")))
	rep.ReportingMTA = typed(h.Get("Reporting-Mta"))
	kind := rep.complaintKind()
	for _, v := range h.Values("Original-Mail-From") {
		rep.addReturnPath(v)
	}
	for _, v := range h.Values("Original-Rcpt-To") {
		if addr := strings.ToLower(strings.Trim(strings.TrimSpace(v), "<>")); addr != "" {
			rep.Recipients = append(rep.Recipients, Recipient{Address: addr, Kind: kind})
		}
	}
}

// complaintKind is what an ARF report says of its recipients: a complaint
// for abuse and fraud reports, nothing acted on for the others.
func (rep *Report) complaintKind() Kind {
	if rep.FeedbackType == "abuse" || rep.FeedbackType == "fraud" {
		return Complaint
	}
	return Unknown
}

// maxReturnPaths bounds the return paths kept of one report.
const maxReturnPaths = 4

// addReturnPath keeps v, an address perhaps in angle brackets, once.
func (rep *Report) addReturnPath(v string) {
	v = strings.ToLower(strings.Trim(strings.TrimSpace(v), "<>"))
	if v == "" || len(rep.ReturnPaths) >= maxReturnPaths || slices.Contains(rep.ReturnPaths, v) {
		return
	}
	rep.ReturnPaths = append(rep.ReturnPaths, v)
}

// readReturned reads the headers of a returned message (or of its headers
// alone, perhaps without the blank line that ends them) from r, its part:
// only as far as the headers' end, so that a whole message returned (as
// Postfix does, attachments and all) is not copied to be read (issue 31:
// the CPU of a DSN); the part's rest is skipped by the next NextPart.
func readReturned(r io.Reader) mail.Header {
	msg, err := mail.ReadMessage(bufio.NewReaderSize(io.MultiReader(r, strings.NewReader("\r\n\r\n")), 1024))
	if err != nil {
		return nil
	}
	return msg.Header
}

// firstField is s's first word ("5.1.1 (user unknown)" is 5.1.1), or "".
func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// unfold joins a folded field's lines with single spaces.
func unfold(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

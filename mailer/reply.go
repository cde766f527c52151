package mailer

import (
	"errors"
	"net/textproto"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What an author may read of a failed send is the mail server's reply
// (code, enhanced code, text), never our relay's address, our host's name or
// any IP address: the whole error, with the relay's address and the step,
// goes to the service's log. A failure without a reply (a connection that
// failed, a timeout) has no reply to show, and core words it neutrally.

// replyError is a send failure the mail server answered; core reads Reply
// (core.MailReply) for the author and logs Error.
type replyError struct {
	err   error
	reply string
}

func (e *replyError) Error() string { return e.err.Error() }
func (e *replyError) Unwrap() error { return e.err }
func (e *replyError) Reply() string { return e.reply }

// maxReply bounds the reply an author reads, in characters.
const maxReply = 300

// hidden replaces a name or address of our own systems in a reply.
const hidden = "[hidden]"

// ipLiteral matches IPv4 addresses and IPv6 addresses of two or more
// colons, as replies quote them ("Client host [10.0.0.3] rejected").
var ipLiteral = regexp.MustCompile(`(?i)\[?\b\d{1,3}(?:\.\d{1,3}){3}\b\]?|\[?(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\]?`)

// hiddenPort is a port after a hidden name or address.
var hiddenPort = regexp.MustCompile(`\[hidden\]:\d+`)

// authorReply is the reply of err for an author: "550 5.1.1 text" on one
// line, with the names in ours (the relay's host, our EHLO name) and every
// IP address hidden; "" when the server did not reply.
func authorReply(err error, ours []string) string {
	var te *textproto.Error
	if !errors.As(err, &te) {
		return ""
	}
	text := strings.Join(strings.Fields(te.Msg), " ")
	for _, name := range ours {
		if name != "" {
			text = replaceName(text, name, hidden)
		}
	}
	text = ipLiteral.ReplaceAllString(text, hidden)
	text = hiddenPort.ReplaceAllString(text, hidden)
	reply := strconv.Itoa(te.Code)
	if text != "" {
		reply += " " + text
	}
	if utf8.RuneCountInString(reply) > maxReply {
		reply = string([]rune(reply)[:maxReply-1]) + "…"
	}
	return strings.ToValidUTF8(reply, "?")
}

// replaceName replaces every occurrence of name in s that stands as a
// whole name, whatever its case: "relay" in "relay.example" or "relays" is
// not the host "relay", while the end of a sentence ("relay.") is.
func replaceName(s, name, repl string) string {
	lower, lowerName := strings.ToLower(s), strings.ToLower(name)
	if len(lower) != len(s) {
		return s // a case change that changes lengths: left as it is
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, lowerName)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(name)
		whole := (i == 0 || !nameChar(s[i-1]) && s[i-1] != '.') &&
			(end == len(s) || !nameChar(s[end]) && (s[end] != '.' || end+1 == len(s) || !nameChar(s[end+1])))
		b.WriteString(s[:i])
		if whole {
			b.WriteString(repl)
		} else {
			b.WriteString(s[i:end])
		}
		s, lower = s[end:], lower[end:]
	}
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// ourNames are the names of our own systems that a reply may quote: the
// relay's host and port, our EHLO name, this machine's host name.
func ourNames(host string, port int, helo string) []string {
	names := []string{host + ":" + strconv.Itoa(port), host, helo}
	if h, err := os.Hostname(); err == nil && h != "" && h != "localhost" {
		names = append(names, h)
	}
	return names
}

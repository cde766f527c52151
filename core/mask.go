package core

import (
	"regexp"
	"strings"
)

// emailPattern finds what looks like an email address in a text: an SMTP
// reply, a log line.
var emailPattern = regexp.MustCompile(`[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*`)

// MaskEmail shows an address as the log may: its first character and its
// domain, "a***@example.com".
func MaskEmail(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at <= 0 {
		return "***"
	}
	return address[:1] + "***" + address[at:]
}

// MaskEmails masks every address in s (MaskEmail), for logs: recipients'
// addresses are personal data, and mail servers quote them in their
// replies.
func MaskEmails(s string) string { return emailPattern.ReplaceAllStringFunc(s, MaskEmail) }

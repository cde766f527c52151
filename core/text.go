package core

import (
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// Text that becomes an email header (a name, a title) is strict: one line,
// no control characters and no bidirectional overrides or marks (Unicode
// Bidi_Control), which could forge or hide what a reader sees.

// lineProblem is what is wrong with a one-line text of at most max
// characters, as a sentence about what ("The title"); "" when nothing.
func lineProblem(s, what string, max int) string {
	switch {
	case utf8.RuneCountInString(s) > max:
		return fmt.Sprintf("%s must be at most %d characters", what, max)
	case strings.IndexFunc(s, func(r rune) bool {
		return r == '\n' || r == '\r' || unicode.In(r, unicode.Zl, unicode.Zp)
	}) >= 0:
		return what + " must be on one line"
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) >= 0:
		return what + " must not contain control characters or text direction marks"
	}
	return ""
}

// allowLocalAddresses is the process's mail.allow_local_recipients.
var allowLocalAddresses atomic.Bool

// AllowLocalAddresses makes ValidEmail accept addresses that only a local
// mail system delivers: a domain without a dot, localhost, IP literals. For
// tests and closed installations (config mail.allow_local_recipients); off
// by default. cmd sets it once at start.
func AllowLocalAddresses(allow bool) { allowLocalAddresses.Store(allow) }

// ValidEmail reports whether s is one plain mailbox address (RFC 5322, as
// net/mail reads it): no display name, at most 254 bytes, a local part, and
// a domain of dotted DNS labels that is neither an IP address nor localhost
// (unless AllowLocalAddresses).
func ValidEmail(s string) bool {
	if len(s) > MaxEmailLen {
		return false
	}
	a, err := parseAddress(s)
	if err != nil || a != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	return validDomain(s[at+1:]) || allowLocalAddresses.Load()
}

// validDomain reports whether d is a public DNS name: two or more labels of
// letters (any script), digits and inner hyphens, at most 63 bytes each,
// not an IP address, not localhost.
func validDomain(d string) bool {
	d = strings.ToLower(d)
	if d == "" || strings.HasPrefix(d, "[") || net.ParseIP(d) != nil ||
		d == "localhost" || strings.HasSuffix(d, ".localhost") {
		return false
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return false
			}
		}
	}
	return true
}

package core

import (
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The text rule of every user-given name and title (message titles,
// recipient names, user names, token names, the contact form's name, a
// provider's name): one line, and no character that is not seen or that
// changes what a reader sees, as these become email headers and lines of
// lists where such characters forge or hide text:
//   - controls (Unicode Cc: C0, DEL, C1), tab included;
//   - bidirectional controls (Bidi_Control: U+061C, U+200E, U+200F,
//     U+202A-U+202E, U+2066-U+2069);
//   - every format character (Cf: U+00AD soft hyphen, U+180E, U+200B
//     zero width space, U+2060-U+2064, U+FEFF, the tag characters
//     U+E0000-U+E007F, ...), except the two joiners below;
//   - the other default-ignorable characters
//     (Other_Default_Ignorable_Code_Point: the Hangul fillers U+115F,
//     U+1160, U+3164, U+FFA0, U+034F, ...), which display as nothing.
// The joiners U+200C (ZWNJ) and U+200D (ZWJ) are letters' business in
// Persian, the Indic scripts and emoji sequences (a woman, ZWJ, a
// laptop): each is allowed only between two visible characters (neither space nor one of the
// characters above), where it joins or parts them; anywhere else (at an
// end, beside a space, doubled) it only hides, and is refused.
// Variation selectors (emoji presentation, U+FE0F) are marks, not format
// characters, and pass. Message bodies are not names: they keep their
// line breaks and tabs; only NUL is refused there (bodyProblem): it means
// nothing in text, and mail servers drop or refuse it.

// hiddenCharsRule is the rule's words after the field's name.
const hiddenCharsRule = " may not contain control, invisible or direction-changing characters"

// hiddenChar reports whether r is refused wherever it stands.
func hiddenChar(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) ||
		unicode.Is(unicode.Cf, r) && r != zwnj && r != zwj ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

const (
	zwnj = '\u200c'
	zwj  = '\u200d'
)

// visible reports whether r may stand beside a joiner.
func visible(r rune) bool {
	return !hiddenChar(r) && r != zwnj && r != zwj && !unicode.IsSpace(r) && unicode.IsGraphic(r)
}

// hasHiddenChars reports whether s breaks the rule's characters: a
// hidden character, or a joiner that is not between two visible ones.
func hasHiddenChars(s string) bool {
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case hiddenChar(r):
			return true
		case r == zwnj || r == zwj:
			if i == 0 || i == len(rs)-1 || !visible(rs[i-1]) || !visible(rs[i+1]) {
				return true
			}
		}
	}
	return false
}

// bodyProblem is what is wrong with a body's characters, as a sentence
// about what ("The message"); "" when nothing.
func bodyProblem(s, what string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return what + " may not contain NUL characters"
	}
	return ""
}

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
	case hasHiddenChars(s):
		return what + hiddenCharsRule
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

package core

import (
	"strings"
	"unicode"
)

// The delivery email's salutation ("Dear Ann,") is added above the body
// only when the body does not open with a greeting of its own, so that a
// letter starting "Dear Ann," is not greeted twice (docs/delivery.md).

// greetingWords are the first words that make a body's first line a
// greeting, lower case.
var greetingWords = map[string]bool{
	"dear": true, "dearest": true, "hi": true, "hello": true, "hey": true, "to": true, "my": true,
	"bonjour": true, "hallo": true, "liebe": true, "lieber": true, "querida": true, "querido": true,
	"cara": true, "caro": true,
}

// OpensWithGreeting reports whether body opens with a greeting: its first
// non-blank line starts with a greeting word (Dear, Hi, Hello, Hey, To, My,
// Bonjour, Hallo, Liebe, Lieber, Querida, Querido, Cara, Caro, any case),
// or holds the recipient's name, or its first word, followed by a comma.
func OpensWithGreeting(name, body string) bool {
	line := ""
	for _, l := range strings.Split(strings.ReplaceAll(body, "\r", "\n"), "\n") {
		if line = strings.TrimSpace(l); line != "" {
			break
		}
	}
	if line == "" {
		return false
	}
	first := strings.FieldsFunc(line, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(first) > 0 && greetingWords[strings.ToLower(first[0])] {
		return true
	}
	lower, name := strings.ToLower(line), strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return false
	}
	given := strings.Fields(name)[0]
	return strings.Contains(lower, name+",") || strings.Contains(lower, given+",")
}

// Salutation is the line the delivery email puts above body for a
// recipient named name: "Dear {name}," ("Hello," without a name), or ""
// when the body opens with its own greeting (OpensWithGreeting).
func Salutation(name, body string) string {
	switch {
	case OpensWithGreeting(name, body):
		return ""
	case strings.TrimSpace(name) == "":
		return "Hello,"
	}
	return "Dear " + name + ","
}

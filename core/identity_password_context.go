package core

import (
	"strings"
	"unicode"
)

// The context-specific words a password may not be made of (OWASP ASVS
// 5.0 6.2.11, documented in docs/security.md): the service's name (the
// configured app name and "sendlater"), the account's email address, the
// part of it before the @ when it has at least 3 characters, and the
// account's name. A password made of one of them with only digits and
// symbols around it ("Sendlater2026!", "ann@example.com", "ann12345") is
// refused; one that merely contains a word among others is not.
func (a *Auth) passwordWords(email, name string) []string {
	words := []string{DefaultIssuer, a.Issuer(), email, name}
	if local, _, ok := strings.Cut(email, "@"); ok {
		words = append(words, local)
	}
	return words
}

// contextualPassword reports whether p is one of words (at least 3
// letters long, ignoring case) with only digits, symbols and spaces before
// or after it.
func contextualPassword(p string, words []string) bool {
	stem := letterStem(p)
	for _, w := range words {
		if len([]rune(strings.TrimSpace(w))) >= 3 && stem == letterStem(w) {
			return true
		}
	}
	return false
}

// letterStem is s in lower case without what comes before its first letter
// or after its last.
func letterStem(s string) string {
	return strings.ToLower(strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }))
}

// checkPasswordFor is CheckPassword and the context-specific words of the
// account of email and name.
func (a *Auth) checkPasswordFor(field, p, email, name string) error {
	if err := CheckPassword(field, p); err != nil {
		return err
	}
	if contextualPassword(p, a.passwordWords(email, name)) {
		msg := "The password is made of your name, your email address or the name of this service, which makes it easy to guess. Please choose another."
		return &Error{Code: EWeakPassword, Message: msg, Fields: map[string]string{field: msg}}
	}
	return nil
}

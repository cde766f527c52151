package core

import (
	"strings"
)

// A sealed message (docs/sealed.md) holds no text the server can read: its
// author's client sends the envelope (the ciphertext, the KDF's salt and
// costs, the version) and an optional hint for the recipients, and the
// server stores and delivers only those.
//
// The stores keep a sealed message in the body's place, as sealedBodyMark,
// the envelope, a line break and the hint: a body of text can never begin
// with the mark (a NUL is refused in every text), so nothing written as
// text reads as sealed, and a sealed message needs no new column, bucket or
// record version in either store (both seal the body at rest as before).

// SealedLetter is what a sealed message holds instead of its text.
type SealedLetter struct {
	// Envelope is the sealed body (SealedEnvelope.String), bound to the
	// message's id by its associated data.
	Envelope string
	// Hint helps the recipients remember the passphrase; it is shown in
	// the email and on the open page, so it must not give it away.
	Hint string
}

// MaxSealHintLen bounds a sealed message's hint, in characters.
const MaxSealHintLen = 200

// MaxSealedBodyBytes bounds the text a sealed envelope may hold: the body
// limit of a text, and the tag.
const MaxSealedBodyBytes = MaxBodyBytes + 16

// sealedBodyMark begins the stored body of a sealed message.
const sealedBodyMark = "\x00sealed\n"

// body is l as the stores keep it, in the body's place.
func (l SealedLetter) body() string { return sealedBodyMark + l.Envelope + "\n" + l.Hint }

// sealedOf reads the sealed letter a stored body holds; false for text.
func sealedOf(body string) (SealedLetter, bool) {
	rest, ok := strings.CutPrefix(body, sealedBodyMark)
	if !ok {
		return SealedLetter{}, false
	}
	env, hint, _ := strings.Cut(rest, "\n")
	return SealedLetter{Envelope: env, Hint: hint}, true
}

// Sealed returns m's sealed letter, and whether m is sealed. A sealed
// message's Body is its stored form, never to be shown as text.
func (m *Message) Sealed() (SealedLetter, bool) { return sealedOf(m.Body) }

// IsSealed reports whether m is sealed.
func (m *Message) IsSealed() bool { return strings.HasPrefix(m.Body, sealedBodyMark) }

// Text is m's body as text: "" for a sealed message.
func (m *Message) Text() string {
	if m.IsSealed() {
		return ""
	}
	return m.Body
}

// SetSealed makes m hold l in place of its text (a client that opened a
// sealed message, such as the TUI, or a test).
func (m *Message) SetSealed(l SealedLetter) { m.Body = l.body() }

// validate checks l's shape, as the server can without a key: a parsable
// envelope of version 1 within the costs and the size limit, and a hint of
// one line. Errors go under sealed.envelope and sealed.hint.
func (l SealedLetter) validate(f map[string]string) {
	switch env, err := ParseSealed(l.Envelope); {
	case strings.TrimSpace(l.Envelope) == "":
		f["sealed.envelope"] = "Please send the sealed envelope of the message"
	case err != nil:
		e, _ := AsError(err)
		f["sealed.envelope"] = strings.TrimSuffix(e.Message, ".")
	case len(env.Ciphertext) > MaxSealedBodyBytes:
		f["sealed.envelope"] = "The sealed message must be at most 100 KB before sealing"
	}
	if p := lineProblem(l.Hint, "The hint", MaxSealHintLen); p != "" {
		f["sealed.hint"] = p
	}
}

// validSealedID checks the id a sealed create chooses (the envelope is
// bound to it, so the client makes it before sealing): NewID's shape.
func validSealedID(id string) bool {
	if len(id) != 20 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// validateContent checks a create's body or sealed letter and its id.
func (in *MessageInput) validateContent(f map[string]string) {
	if in.Sealed == nil {
		validateBody(f, in.Body)
		if in.ID != "" {
			f["id"] = "Only a sealed message is created with an id of its own"
		}
		return
	}
	if in.Body != "" {
		f["message"] = "A sealed message carries no text: send the sealed envelope only"
	}
	if !validSealedID(in.ID) {
		f["id"] = "A sealed message needs the id it was sealed for: 20 letters and digits"
	}
	in.Sealed.validate(f)
}

// validateContent checks an edit's body or sealed letter.
func (up *MessageUpdate) validateContent(f map[string]string) {
	switch {
	case up.Sealed != nil && up.Body != nil:
		f["message"] = "A sealed message carries no text: send the sealed envelope only"
	case up.Sealed != nil:
		up.Sealed.validate(f)
	case up.Body != nil:
		validateBody(f, *up.Body)
	}
}

// storedBody is what the input stores in the body's place.
func (in *MessageInput) storedBody() string {
	if in.Sealed != nil {
		return in.Sealed.body()
	}
	return in.Body
}

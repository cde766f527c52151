package core

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// SealMinBits is the strength a seal's passphrase needs: an offline guesser
// with the envelope (the recipients' link is its only way out) must try on
// the order of 2^60 Argon2id keys at 64 MiB each.
const SealMinBits = 60

// PassphraseBits estimates, conservatively, how many bits of guessing a
// passphrase resists (docs/sealed.md; web/ui/src/lib/sealed.ts computes the
// same, and the golden vectors hold both to it). It reads the passphrase
// (NFC) as runs of letters, of digits and of other characters. A run of one
// or two letters is worth 4.7 bits a letter (random letters); of three, 7
// bits (a common short word); of four to eight, 11 bits (a word from a list
// of about 2,000); beyond eight, 2.35 bits more a letter, scaled down when
// the run uses fewer than 8 distinct letters ("aaaa…"). A run of digits is
// worth 1.66 bits a digit up to 4 (years and PINs) and 3.32 beyond; a space
// or hyphen 1 bit, any other character 5. A run seen before (ignoring case)
// is worth 1 bit.
func PassphraseBits(passphrase string) int {
	rs := []rune(norm.NFC.String(passphrase))
	seen := map[string]bool{}
	total := 0.0
	for i := 0; i < len(rs); {
		kind := runeKind(rs[i])
		j := i + 1
		for j < len(rs) && runeKind(rs[j]) == kind && kind != kindOther {
			j++
		}
		run := strings.ToLower(string(rs[i:j]))
		n := float64(j - i)
		bits := 0.0
		switch {
		case seen[run]:
			bits = 1
		case kind == kindLetter && n <= 2:
			bits = n * 4.7
		case kind == kindLetter && n == 3:
			bits = 7
		case kind == kindLetter && n <= 8:
			bits = 11
		case kind == kindLetter:
			bits = 11 + (n-8)*2.35*math.Min(1, float64(distinct(run))/8)
		case kind == kindDigit && n <= 4:
			bits = n * 1.66
		case kind == kindDigit:
			bits = 4*1.66 + (n-4)*3.32
		case run == " " || run == "-":
			bits = 1
		default:
			bits = 5
		}
		seen[run] = true
		total += bits
		i = j
	}
	return int(math.Floor(total + 1e-9))
}

// distinct is how many different characters s holds.
func distinct(s string) int {
	m := map[rune]bool{}
	for _, r := range s {
		m[r] = true
	}
	return len(m)
}

const (
	kindLetter = iota
	kindDigit
	kindOther
)

func runeKind(r rune) int {
	switch {
	case unicode.IsLetter(r):
		return kindLetter
	case unicode.IsDigit(r):
		return kindDigit
	}
	return kindOther
}

// CheckPassphrase refuses a seal's passphrase weaker than SealMinBits, in
// words a person can act on, on the field passphrase: the web app's words
// (seal-fields.tsx), held together by testdata/sealed/checks.json. Only an
// empty passphrase is asked for; blanks are a weak one.
func CheckPassphrase(passphrase string) error {
	if passphrase == "" {
		return ValidationError(map[string]string{"passphrase": "Please enter a passphrase"})
	}
	if bits := PassphraseBits(passphrase); bits < SealMinBits {
		return ValidationError(map[string]string{"passphrase": fmt.Sprintf(
			"This passphrase is too easy to guess (about %d bits of the %d needed): use six or more random words, or add more words, digits and symbols", bits, SealMinBits)})
	}
	return nil
}

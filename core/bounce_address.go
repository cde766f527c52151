package core

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// PurposeBounceAddresses keys the VERP return paths (BounceAddresses).
const PurposeBounceAddresses = "sendlater bounce addresses"

// BounceEmail is which email to a recipient a return path was made for.
type BounceEmail int

const (
	// BounceDelivery: the delivery of the message.
	BounceDelivery BounceEmail = iota
	// BounceNotice: the "tell the recipient now" notice.
	BounceNotice
)

func (k BounceEmail) String() string {
	if k == BounceNotice {
		return "notice"
	}
	return "message"
}

// BounceRef is what a return path names: one email to one recipient of one
// message.
type BounceRef struct {
	MessageID string
	Recipient int // the index in Message.RecipientList
	Email     BounceEmail
	// Address is the recipient's address the email went to: a token
	// carries 32 bits of its keyed hash (Names), so that a bounce of an
	// address the author has replaced since marks nothing. Read leaves it
	// empty.
	Address string
	fp      [4]byte
}

// Names tells whether ref, read from a return path, was made for an email
// to address.
func (b *BounceAddresses) Names(ref BounceRef, address string) bool {
	if b == nil {
		return false
	}
	fp := b.fingerprint(address)
	return hmac.Equal(fp[:], ref.fp[:])
}

func (b *BounceAddresses) fingerprint(address string) (fp [4]byte) {
	h := hmac.New(sha256.New, b.mac)
	h.Write([]byte("address\x00" + EmailKey(address)))
	copy(fp[:], h.Sum(nil))
	return fp
}

// BounceAddresses makes and reads the per-recipient return paths (VERP) of
// the emails to recipients: bounces+TOKEN@<mail.bounce_domain>. TOKEN is
// the reference sealed deterministically (an SIV construction: an
// HMAC-SHA256 tag of the reference, 64 bits, is the IV of AES-CTR over
// it), so it needs no storage, does not show the message or the recipient,
// and a token not made here (forged, altered, of another installation) is
// refused. The same email always gets the same address, so retries and
// copies agree.
type BounceAddresses struct {
	Domain string
	mac    []byte
	block  cipher.Block
}

// bounceLocal is the local part's fixed start.
const bounceLocal = "bounces+"

// maxBounceID is the longest message id a token carries: a local part is
// at most 64 octets (RFC 5321 4.5.3.1.1): 8 for "bounces+", 56 of base32
// are 35 bytes: the tag (8), the kind and index (1), the address's
// fingerprint (4), the id (22; core's ids are 20).
const maxBounceID = 22

const bounceTagSize = 8

var bounceEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewBounceAddresses derives the token keys from a 32-byte secret (in
// production DeriveKey(master, PurposeBounceAddresses)); domain is the
// bounce domain. nil when domain is empty: no return paths.
func NewBounceAddresses(secret []byte, domain string) *BounceAddresses {
	if domain == "" {
		return nil
	}
	block, err := aes.NewCipher(DeriveKey(secret, "sendlater bounce token cipher"))
	if err != nil {
		panic(err) // a 32-byte key never fails
	}
	return &BounceAddresses{Domain: strings.ToLower(domain), mac: DeriveKey(secret, "sendlater bounce token mac"), block: block}
}

func (b *BounceAddresses) tag(plain []byte) []byte {
	h := hmac.New(sha256.New, b.mac)
	h.Write(plain)
	return h.Sum(nil)[:bounceTagSize]
}

func (b *BounceAddresses) xor(tag, data []byte) {
	iv := make([]byte, aes.BlockSize)
	copy(iv, tag)
	cipher.NewCTR(b.block, iv).XORKeyStream(data, data)
}

// Address returns the return path of ref's email; "" when b is nil or the
// message id is too long for a token (the email then goes out with the
// sender's address as its return path, as without a bounce domain).
func (b *BounceAddresses) Address(ref BounceRef) string {
	if b == nil || ref.MessageID == "" || len(ref.MessageID) > maxBounceID || ref.Recipient < 0 || ref.Recipient > 15 || ref.Email < 0 || ref.Email > 15 {
		return ""
	}
	fp := b.fingerprint(ref.Address)
	plain := append(append([]byte{byte(ref.Email)<<4 | byte(ref.Recipient)}, fp[:]...), ref.MessageID...)
	tag := b.tag(plain)
	b.xor(tag, plain)
	return bounceLocal + bounceEncoding.EncodeToString(append(tag, plain...)) + "@" + b.Domain
}

// Read returns what the return path address names; false for any address
// b did not make (another domain, a token forged or altered).
func (b *BounceAddresses) Read(address string) (BounceRef, bool) {
	if b == nil {
		return BounceRef{}, false
	}
	address = strings.ToLower(strings.Trim(strings.TrimSpace(address), "<>"))
	at := strings.LastIndexByte(address, '@')
	if at < 0 || address[at+1:] != b.Domain || !strings.HasPrefix(address[:at], bounceLocal) {
		return BounceRef{}, false
	}
	raw, err := bounceEncoding.DecodeString(address[len(bounceLocal):at])
	if err != nil || len(raw) < bounceTagSize+6 {
		return BounceRef{}, false
	}
	tag, plain := raw[:bounceTagSize], raw[bounceTagSize:]
	b.xor(tag, plain)
	if !hmac.Equal(tag, b.tag(plain)) {
		return BounceRef{}, false
	}
	ref := BounceRef{MessageID: string(plain[5:]), Recipient: int(plain[0] & 0x0f), Email: BounceEmail(plain[0] >> 4)}
	copy(ref.fp[:], plain[1:5])
	return ref, true
}

// IsBounceAddress tells whether address is at the bounce domain with the
// return paths' local part, whatever its token: what the inbound listener
// accepts before reading the token.
func (b *BounceAddresses) IsBounceAddress(address string) bool {
	if b == nil {
		return false
	}
	address = strings.ToLower(strings.Trim(strings.TrimSpace(address), "<>"))
	at := strings.LastIndexByte(address, '@')
	return at > len(bounceLocal) && address[at+1:] == b.Domain && strings.HasPrefix(address[:at], bounceLocal)
}

// feedbackLocal is the local part of the fixed address of feedback loops.
const feedbackLocal = "fbl"

// FeedbackAddress is the fixed address at the bounce domain to register
// with the feedback loops of mailbox providers that send their complaint
// reports (ARF) to one address instead of the email's return path: the
// inbound listener takes such a report when it quotes one of the return
// paths made here (see inbound). "" when b is nil.
func (b *BounceAddresses) FeedbackAddress() string {
	if b == nil {
		return ""
	}
	return feedbackLocal + "@" + b.Domain
}

// IsFeedbackAddress tells whether address is FeedbackAddress (any case).
func (b *BounceAddresses) IsFeedbackAddress(address string) bool {
	return b != nil && strings.ToLower(strings.Trim(strings.TrimSpace(address), "<>")) == b.FeedbackAddress()
}

// BounceToken is the TOKEN of a return path bounces+TOKEN@domain: what a
// provider that replaces the return path is given to keep (Postmark's
// metadata); "" for any other address.
func BounceToken(returnPath string) string {
	at := strings.LastIndexByte(returnPath, '@')
	if at <= len(bounceLocal) || !strings.HasPrefix(returnPath, bounceLocal) {
		return ""
	}
	tok := returnPath[len(bounceLocal):at]
	for _, c := range tok {
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return ""
		}
	}
	return tok
}

package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// A sealed message's recipients open it at /open/{token}: the email carries
// a token of their own, and the page fetches the envelope with it and opens
// it in the browser with the passphrase (docs/sealed.md). The token is the
// message's id and a MAC of it and the recipient's address (128 bits, under
// a key derived from the master key): nothing is stored to check it, and
// none can be made without the key. It opens from the recipient's delivery
// for its validity: sealed.link_valid_for, DefaultOpenValidity by default
// (SealedOpenService.Validity; the email says it, Delivery.OpenValidity).

// PurposeSealedOpen is the purpose of the key of the recipients' open links.
const PurposeSealedOpen = "sendlater sealed open links"

// DefaultOpenValidity is how long after its delivery a recipient's link
// opens the message.
const DefaultOpenValidity = 365 * 24 * time.Hour

// The bounds of an open link's validity (the config's sealed.link_valid_for):
// a day at least, so that a recipient away for a weekend still opens it; ten
// years at most.
const (
	MinOpenValidity = 24 * time.Hour
	MaxOpenValidity = 10 * DefaultOpenValidity
)

// OpenValidityWords says validity (zero: DefaultOpenValidity) as the email
// and the refusal of an expired link do: "a year", "2 years", "30 days",
// "36 hours".
func OpenValidityWords(validity time.Duration) string {
	if validity == 0 {
		validity = DefaultOpenValidity
	}
	const day = 24 * time.Hour
	switch {
	case validity == DefaultOpenValidity:
		return "a year"
	case validity%DefaultOpenValidity == 0:
		return fmt.Sprintf("%d years", validity/DefaultOpenValidity)
	case validity == day:
		return "a day"
	case validity%day == 0:
		return fmt.Sprintf("%d days", validity/day)
	case validity%time.Hour == 0:
		return fmt.Sprintf("%d hours", validity/time.Hour)
	}
	return validity.String()
}

// EventOpened: a recipient (Recipient) fetched the sealed message from
// their link.
const EventOpened EventKind = "opened"

// ActorOpenLink is who opened: a recipient, by their link.
const ActorOpenLink = "recipient (open link)"

// Limits of the open page's fetches: of one link (the envelope it gives
// can be guessed at offline anyway, but a link is not a free download),
// and of one client on any link, its wrong tokens included.
var (
	LimitOpenToken  = Limit{"open-token", 30, time.Hour}
	LimitOpenClient = Limit{"open-client", 60, time.Hour}
)

// OpenTokens makes and checks the recipients' tokens.
type OpenTokens struct{ key []byte }

// NewOpenTokens returns the tokens under key (DeriveKey(master,
// PurposeSealedOpen)).
func NewOpenTokens(key []byte) *OpenTokens { return &OpenTokens{key: key} }

func (t *OpenTokens) mac(messageID, address string) string {
	h := hmac.New(sha256.New, t.key)
	h.Write([]byte("open\n" + messageID + "\n" + strings.ToLower(address)))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// Token is the open token of the recipient address of message messageID.
func (t *OpenTokens) Token(messageID, address string) string {
	return messageID + "." + t.mac(messageID, address)
}

// TestToken is the token of a test email's link: it opens nothing (a test
// is sent before any delivery), and the page says so.
func (t *OpenTokens) TestToken(messageID string) string { return messageID + ".test" }

// SealedOpenView is what the open page receives: the envelope to open in
// the browser and what it may show around it. Never the title (the
// author's private label).
type SealedOpenView struct {
	MessageID string
	Envelope  string
	Hint      string
	Author    string // the author's name, or address without one
	To        string // the recipient's name, or address
	WrittenAt time.Time
	// Files are the message's complete files, sealed by the author's
	// client with the same passphrase (docs/sealed.md, "Files (v1)").
	Files []SealedOpenFile
}

// SealedOpenFile is a file the open page lists and opens: its sealed
// size (the page shows the opened one), and the recipient's own link, the
// one their email would carry, as a path on the site.
type SealedOpenFile struct {
	ID   string
	Name string
	Size int64
	URL  string
}

// SealedOpenService serves the open page. It implements SealedOpens.
type SealedOpenService struct {
	Messages MessageStore
	Users    UserStore
	Clock    Clock
	Limits   *Limiter
	Tokens   *OpenTokens
	// Validity is how long after delivery a link opens; zero:
	// DefaultOpenValidity.
	Validity time.Duration
	// Files and FileLinks list the message's files with the recipient's
	// links; nil: none listed (no file storage).
	Files     AttachmentStore
	FileLinks *FileLinks
}

// SealedOpens is what the web server needs of SealedOpenService.
type SealedOpens interface {
	Open(ctx context.Context, token, client string) (*SealedOpenView, error)
}

func (s *SealedOpenService) errOpenLink() error {
	return Errorf(ENotFound, "This link does not open a sealed message. Check that you copied the whole link from your email; a link opens for %s after the message arrived.", OpenValidityWords(s.Validity))
}

// Open returns the sealed message token opens, for client (its address),
// and records on the author's timeline that the recipient opened it. A
// wrong, expired or unknown token answers the same.
func (s *SealedOpenService) Open(ctx context.Context, token, client string) (*SealedOpenView, error) {
	client = s.Limits.Client(client)
	if len(token) > 80 {
		token = token[:80]
	}
	wait, err := s.Limits.Take(ctx, LimitTake{LimitOpenClient, client}, LimitTake{LimitOpenToken, token})
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		return nil, &Error{Code: ETooManyRequests, Message: "This link was opened too often. Please try again later.", RetryAfter: wait}
	}
	id, _, _ := strings.Cut(token, ".")
	if ValidID("message", id) != nil {
		return nil, s.errOpenLink()
	}
	m, err := s.Messages.FindMessageByID(ctx, id)
	if ErrorCode(err) == EMessageNotFound {
		return nil, s.errOpenLink()
	}
	if err != nil {
		return nil, err
	}
	letter, sealed := m.Sealed()
	r := s.recipient(m, token)
	validity := s.Validity
	if validity == 0 {
		validity = DefaultOpenValidity
	}
	if !sealed || r == nil || r.Status != RecipientSent || s.Clock.Now().After(r.SentAt.Add(validity)) {
		return nil, s.errOpenLink()
	}
	author, err := s.Users.FindUserByID(ctx, m.Owner)
	if err != nil {
		return nil, err
	}
	view := &SealedOpenView{MessageID: m.ID, Envelope: letter.Envelope, Hint: letter.Hint,
		Author: author.Name, To: r.Name, WrittenAt: m.CreatedAt}
	if view.Author == "" {
		view.Author = author.Email
	}
	if view.To == "" {
		view.To = r.Address
	}
	if view.Files, err = s.openFiles(ctx, m, r.Address); err != nil {
		return nil, err
	}
	address := r.Address
	_, err = s.Messages.UpdateMessage(ctx, id, func(m *Message) error {
		m.record(s.Clock.Now(), EventOpened, ActorOpenLink, MessageEvent{Recipient: address})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return view, nil
}

// recipient is m's recipient whose token is token; nil when none.
func (s *SealedOpenService) recipient(m *Message, token string) *Recipient {
	rs := m.RecipientList()
	for i := range rs {
		if hmac.Equal([]byte(token), []byte(s.Tokens.Token(m.ID, rs[i].Address))) {
			return &rs[i]
		}
	}
	return nil
}

// openFiles are m's complete files as the open page of the recipient
// address lists them.
func (s *SealedOpenService) openFiles(ctx context.Context, m *Message, address string) ([]SealedOpenFile, error) {
	if s.Files == nil || s.FileLinks == nil {
		return nil, nil
	}
	as, err := s.Files.MessageAttachments(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	var out []SealedOpenFile
	for _, a := range completeFiles(as) {
		out = append(out, SealedOpenFile{ID: a.ID, Name: a.Name, Size: a.Size, URL: FileLinkPath + s.FileLinks.Token(m.ID, a.ID, address)})
	}
	return out, nil
}

package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"time"
)

// A delivered message's files are downloaded by each recipient from links
// of their own, {base_url}/files/{token} (docs/attachments.md, "Delivered
// by link"). The token is the file's id, a dot and an HMAC-SHA256 of the
// message's id, the file's id and the recipient's lower-cased address
// under a key derived from the master key, truncated to 128 bits: nothing
// is stored to check it, none can be made without the key, and one
// recipient's token opens neither another recipient's file nor another
// file. It downloads from the recipient's delivery for
// attachments.link_valid_for (DefaultFileLinkValidity by default).

// PurposeFileLinks is the purpose of the key of the recipients' file links.
const PurposeFileLinks = "sendlater file links"

// FileLinkPath starts every file link, after the base URL.
const FileLinkPath = "/files/"

// DefaultFileLinkValidity is how long after its delivery a recipient's
// file link downloads: 90 days. Its bounds are the open links'
// (MinOpenValidity, MaxOpenValidity).
const DefaultFileLinkValidity = 90 * 24 * time.Hour

// fileTestMark ends a test email's file link: the file's id and ".test".
const fileTestMark = "test"

// EventDownloaded: a recipient (Recipient) downloaded a file (Detail: its
// name) from their link, the first time; later downloads are counted with
// the file (AttachmentDownloads), not written on the timeline.
const EventDownloaded EventKind = "downloaded"

// ActorFileLink is who downloaded: a recipient, by their link.
const ActorFileLink = "recipient (file link)"

// The refusals of a file link beside attachment/not-found (404).
const (
	// EFileLinkExpired is a recipient's link past its validity (410).
	EFileLinkExpired = "attachment/link-expired"
	// EFileTestLink is a test email's link without the author's session
	// (401).
	EFileTestLink = "attachment/test-link"
)

// Limits of the file links: of one link (a download resumed by ranges
// makes a few requests, a player many) and of one client on any link, its
// wrong tokens included.
var (
	LimitFileToken  = Limit{"file-token", 120, time.Hour}
	LimitFileClient = Limit{"file-client", 240, time.Hour}
)

// FileLinks makes and checks the recipients' file tokens.
type FileLinks struct{ key []byte }

// NewFileLinks returns the tokens under key (DeriveKey(master,
// PurposeFileLinks)).
func NewFileLinks(key []byte) *FileLinks { return &FileLinks{key: key} }

// Token is the token of file fileID of message messageID for the recipient
// address.
func (t *FileLinks) Token(messageID, fileID, address string) string {
	h := hmac.New(sha256.New, t.key)
	h.Write([]byte("file\n" + messageID + "\n" + fileID + "\n" + strings.ToLower(address)))
	return fileID + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// FileTestToken is the token of file fileID in a test email or a preview:
// it downloads only for the file's author, signed in.
func FileTestToken(fileID string) string { return fileID + "." + fileTestMark }

// AttachmentDownload counts one recipient's downloads of one file.
type AttachmentDownload struct {
	FileID    string
	Recipient int    // the recipient's index in the message's list
	Address   string // the recipient's address (AttachmentService.List); not stored
	Count     int
	FirstAt   time.Time
	LastAt    time.Time
}

// AttachmentDownloadStore keeps the downloads' counts, with the file's
// record (deleted with it).
type AttachmentDownloadStore interface {
	// CountAttachmentDownload adds one download of file id by recipient
	// at at and returns the count after it (1: the first); a file that is
	// gone is EAttachmentNotFound.
	CountAttachmentDownload(ctx context.Context, id string, recipient int, at time.Time) (int, error)
	// AttachmentDownloads returns the counts of file id, by recipient.
	AttachmentDownloads(ctx context.Context, id string) ([]AttachmentDownload, error)
}

// FileLinkService serves the recipients' file links. It implements
// FileDownloads.
type FileLinkService struct {
	Attachments AttachmentStore
	Downloads   AttachmentDownloadStore
	Messages    MessageStore
	// Files opens the bytes (its Blobs and Key).
	Files  *AttachmentService
	Clock  Clock
	Limits *Limiter
	Tokens *FileLinks
	// Validity is how long after delivery a link downloads; zero:
	// DefaultFileLinkValidity.
	Validity time.Duration
	// SealedValidity is the open link's (sealed.link_valid_for): a sealed
	// message's files open on that page, so their links download at
	// least as long as it opens.
	SealedValidity time.Duration
}

// FileDownloads is what the web server needs of FileLinkService.
type FileDownloads interface {
	Download(ctx context.Context, token, client string, count bool) (*Attachment, *AttachmentReader, error)
}

var _ FileDownloads = (*FileLinkService)(nil)

func (s *FileLinkService) validity() time.Duration {
	if s.Validity == 0 {
		return DefaultFileLinkValidity
	}
	return s.Validity
}

func errFileLink() error {
	return Errorf(EAttachmentNotFound, "This link does not download a file. Check that you copied the whole link from your email.")
}

// validityOf is how long a's links download: a sealed message's files as
// long as its open page opens, if that is longer.
func (s *FileLinkService) validityOf(a *Attachment) time.Duration {
	if a.ClientSealed {
		open := s.SealedValidity
		if open == 0 {
			open = DefaultOpenValidity
		}
		return max(s.validity(), open)
	}
	return s.validity()
}

func errFileLinkExpired(validity time.Duration) error {
	return Errorf(EFileLinkExpired, "This link has expired: a file's link downloads for %s after the message arrived. Ask its author for the file.",
		OpenValidityWords(validity))
}

func errFileTestLink() error {
	return Errorf(EFileTestLink, "This is the link of a test email: it downloads the file only for its author, signed in. Each recipient's email has a link of their own.")
}

// Download opens the file token names for client (its address): a
// recipient's link within its validity, or a test link with the file's
// author's identity in ctx. count says the request is a download to count
// (not a HEAD, nor a range after the first byte): a recipient's first adds
// an event to the author's timeline. Close the reader after.
func (s *FileLinkService) Download(ctx context.Context, token, client string, count bool) (*Attachment, *AttachmentReader, error) {
	client = s.Limits.Client(client)
	if len(token) > 80 {
		token = token[:80]
	}
	wait, err := s.Limits.Take(ctx, LimitTake{LimitFileClient, client}, LimitTake{LimitFileToken, token})
	if err != nil {
		return nil, nil, err
	}
	if wait > 0 {
		return nil, nil, &Error{Code: ETooManyRequests, Message: "This link was used too often. Please try again later.", RetryAfter: wait}
	}
	id, mac, _ := strings.Cut(token, ".")
	if ValidID("attachment", id) != nil || mac == "" {
		return nil, nil, errFileLink()
	}
	a, err := s.Attachments.Attachment(ctx, id)
	if ErrorCode(err) == EAttachmentNotFound {
		return nil, nil, errFileLink()
	} else if err != nil {
		return nil, nil, err
	}
	if a.State != AttachmentComplete {
		return nil, nil, errFileLink()
	}
	if mac == fileTestMark {
		who := IdentityFrom(ctx)
		switch {
		case who == nil:
			return nil, nil, errFileTestLink()
		case who.UserID != a.Owner:
			return nil, nil, errFileLink()
		}
		return a, &AttachmentReader{ctx: ctx, s: s.Files, a: a}, nil
	}
	m, err := s.Messages.FindMessageByID(ctx, a.MessageID)
	if ErrorCode(err) == EMessageNotFound {
		return nil, nil, errFileLink()
	} else if err != nil {
		return nil, nil, err
	}
	rs := m.RecipientList()
	i := -1
	for j := range rs {
		if hmac.Equal([]byte(token), []byte(s.Tokens.Token(m.ID, a.ID, rs[j].Address))) {
			i = j
			break
		}
	}
	if i < 0 || rs[i].Status != RecipientSent {
		return nil, nil, errFileLink()
	}
	now := s.Clock.Now()
	if validity := s.validityOf(a); now.After(rs[i].SentAt.Add(validity)) {
		return nil, nil, errFileLinkExpired(validity)
	}
	if count {
		if err := s.count(ctx, a, i, rs[i].Address, now); err != nil {
			return nil, nil, err
		}
	}
	return a, &AttachmentReader{ctx: ctx, s: s.Files, a: a}, nil
}

// count counts a download; the first of a recipient and file goes on the
// author's timeline.
func (s *FileLinkService) count(ctx context.Context, a *Attachment, recipient int, address string, now time.Time) error {
	n, err := s.Downloads.CountAttachmentDownload(ctx, a.ID, recipient, now)
	if ErrorCode(err) == EAttachmentNotFound {
		return errFileLink()
	} else if err != nil || n != 1 {
		return err
	}
	_, err = s.Messages.UpdateMessage(ctx, a.MessageID, func(m *Message) error {
		m.record(now, EventDownloaded, ActorFileLink, MessageEvent{Recipient: address, Detail: a.Name})
		return nil
	})
	if ErrorCode(err) == EMessageNotFound {
		return errFileLink()
	}
	return err
}

package core

import (
	"context"
	"errors"
	"io"
	"time"
)

// PurposeAttachments derives the key files are sealed under at rest
// (SealAttachment).
const PurposeAttachments = "sendlater attachments"

// DefaultAttachmentPartSize is the upload protocol's part: what one PATCH
// carries and one blob holds, sealed. 1 MiB: a slow uplink (1 Mbit/s)
// sends one in about 8 seconds, a dropped connection loses at most that,
// and an S3 put of one (a single request below S3's 5 MiB part) holds at
// most that much in memory.
const DefaultAttachmentPartSize = 16 * AttachmentChunkSize

// DefaultStaleUpload is how long an upload may stay incomplete before
// `attachments gc` removes it.
const DefaultStaleUpload = 7 * 24 * time.Hour

// DefaultAttachmentLimits are the plans' limits when config sets none:
// none on Starter (refused with the upgrade hint), 25 MB a message and
// 250 MB an account on Pro, 100 MB and 2 GB on Business.
var DefaultAttachmentLimits = map[PlanID]AttachmentLimits{
	PlanStarter:  {},
	PlanPro:      {PerMessage: 25_000_000, PerAccount: 250_000_000},
	PlanBusiness: {PerMessage: 100_000_000, PerAccount: 2_000_000_000},
}

// AttachmentService is the author's files: uploads in parts, reads,
// deletion, and the collection of what a crash left behind.
type AttachmentService struct {
	Attachments AttachmentStore
	Messages    MessageStore
	Users       UserStore
	Blobs       BlobStore
	Prices      PriceMap
	Clock       Clock
	// Key seals the files at rest (DeriveKey(master, PurposeAttachments)).
	Key []byte
	// Limits are each plan's (config attachments.*); a plan missing from
	// it has DefaultAttachmentLimits'.
	Limits map[PlanID]AttachmentLimits
	// PartSize is a new upload's part size, a multiple of
	// AttachmentChunkSize; zero: DefaultAttachmentPartSize.
	PartSize int64
	// Downloads counts the recipients' downloads, which List shows; nil:
	// not shown.
	Downloads AttachmentDownloadStore
}

var _ Attachments = (*AttachmentService)(nil)

// LimitsFor is what the plan allows.
func (s *AttachmentService) LimitsFor(plan PlanID) AttachmentLimits {
	if l, ok := s.Limits[plan]; ok {
		return l
	}
	return DefaultAttachmentLimits[plan]
}

func (s *AttachmentService) partSize() int64 {
	if s.PartSize > 0 {
		return s.PartSize
	}
	return DefaultAttachmentPartSize
}

// message is the author's message id, for scope (another's answers as a
// missing one does).
func (s *AttachmentService) message(ctx context.Context, scope, id string) (*Identity, *Message, error) {
	who, err := authorized(ctx, scope)
	if err != nil {
		return nil, nil, err
	}
	if id == "" || len(id) > 64 {
		return nil, nil, ErrMessageNotFound()
	}
	m, err := s.Messages.FindMessageByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if m.Owner != who.UserID {
		return nil, nil, ErrMessageNotFound()
	}
	return who, m, nil
}

// file is the author's file id of message messageID, for scope.
func (s *AttachmentService) file(ctx context.Context, scope, messageID, id string) (*Attachment, error) {
	who, err := authorized(ctx, scope)
	if err != nil {
		return nil, err
	}
	if id == "" || len(id) > 64 {
		return nil, ErrAttachmentNotFound()
	}
	a, err := s.Attachments.Attachment(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.Owner != who.UserID || a.MessageID != messageID {
		return nil, ErrAttachmentNotFound()
	}
	return a, nil
}

// Create makes the upload of a file of size bytes named name to the
// author's message, reserving its size under the plan's limits.
func (s *AttachmentService) Create(ctx context.Context, messageID, name string, size int64) (*Attachment, error) {
	who, m, err := s.message(ctx, ScopeMessagesWrite, messageID)
	if err != nil {
		return nil, err
	}
	clean := CleanAttachmentName(name)
	f := map[string]string{}
	if clean == "" {
		f["name"] = "Give the file a name."
	}
	if size < 0 {
		f["size"] = "The size must be 0 or more bytes."
	}
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	u, err := s.Users.FindUserByID(ctx, who.UserID)
	if err != nil {
		return nil, err
	}
	plan, active := s.Prices.PlanOf(u)
	if !active {
		plan = PlanStarter
	}
	l := s.LimitsFor(plan)
	if l.PerMessage <= 0 || l.PerAccount <= 0 {
		return nil, Errorf(EFeatureNotIncluded, "Files are part of the Pro and Business plans; upgrade to attach files.")
	}
	a := &Attachment{ID: NewID(), MessageID: m.ID, Owner: m.Owner, Name: clean, Size: size, ClientSealed: m.IsSealed(),
		PartSize: s.partSize(), State: AttachmentUploading, CreatedAt: s.Clock.Now()}
	if a.ClientSealed {
		a.Type = "application/octet-stream"
	}
	q := AttachmentQuota{MaxFiles: MaxAttachments, PerMessage: l.PerMessage, PerAccount: l.PerAccount}
	if err := s.Attachments.CreateAttachment(ctx, a, q); err != nil {
		return nil, err
	}
	return a, nil
}

// Get returns the author's file id of message messageID.
func (s *AttachmentService) Get(ctx context.Context, messageID, id string) (*Attachment, error) {
	return s.file(ctx, ScopeMessagesRead, messageID, id)
}

// List returns the files of the author's message, oldest first.
func (s *AttachmentService) List(ctx context.Context, messageID string) ([]*Attachment, error) {
	_, m, err := s.message(ctx, ScopeMessagesRead, messageID)
	if err != nil {
		return nil, err
	}
	as, err := s.Attachments.MessageAttachments(ctx, m.ID)
	if err != nil || s.Downloads == nil {
		return as, err
	}
	rs := m.RecipientList()
	for _, a := range as {
		if a.State != AttachmentComplete || !anySent(rs) {
			continue
		}
		if a.Downloads, err = s.Downloads.AttachmentDownloads(ctx, a.ID); err != nil {
			return nil, err
		}
		for i := range a.Downloads {
			if r := a.Downloads[i].Recipient; r < len(rs) {
				a.Downloads[i].Address = rs[r].Address
			}
		}
	}
	return as, nil
}

// anySent reports whether a recipient of rs was sent the message.
func anySent(rs []Recipient) bool {
	for _, r := range rs {
		if r.Status == RecipientSent {
			return true
		}
	}
	return false
}

// ErrUploadOffset is an upload sent from another offset than where it
// stands; the reply tells where.
func ErrUploadOffset(offset int64) error {
	sentence := "The upload is at another offset; ask for it (HEAD) and send from there."
	return &Error{Code: EConflict, Message: sentence, Fields: map[string]string{"offset": sentence}}
}

// ErrUploadComplete is a part sent to a complete file.
func ErrUploadComplete() error {
	return Errorf(EConflict, "This file is complete; it takes no more bytes.")
}

// errShortPart is a body that ended inside a part.
var errShortPart = errors.New("the body ended inside a part")

// Upload stores the next part of the author's upload id from body, which
// starts at offset (where the upload stands, else ErrUploadOffset). A body
// holds one part: the upload's PartSize bytes, or what is left of the file
// for its last part. It is sealed (SealAttachment, bound to the file, the
// part's index and the number of parts) and streamed into the BlobStore
// under a key of its own, never whole in memory; the record lists the part
// only once its blob is stored, so a part cut short by a dropped
// connection leaves the offset where it was (its blob, if any, is removed,
// or an orphan for gc). Part 0 sets the type sniffed from its first bytes;
// the last part completes the file.
func (s *AttachmentService) Upload(ctx context.Context, messageID, id string, offset int64, body io.Reader) (*Attachment, error) {
	a, err := s.file(ctx, ScopeMessagesWrite, messageID, id)
	if err != nil {
		return nil, err
	}
	if a.State == AttachmentComplete {
		return a, ErrUploadComplete()
	}
	if offset != a.Offset() {
		return a, ErrUploadOffset(a.Offset())
	}
	i := len(a.Parts)
	want := a.PartLen(i)
	part := &exactReader{r: body, left: want}
	var head *headReader
	var r io.Reader = part
	if i == 0 {
		head = &headReader{r: part}
		r = head
	}
	sealed, err := SealAttachment(s.Key, a.partSealID(i), r)
	if err != nil {
		return a, err
	}
	token := RandomString(16)
	key := a.PartKey(i, token)
	if _, err := s.Blobs.PutBlob(ctx, key, sealed); err != nil {
		s.dropBlob(ctx, key)
		if errors.Is(err, errShortPart) || part.short {
			sentence := "The body ended inside a part: send the whole part again from the upload's offset."
			return a, &Error{Code: EInvalid, Message: sentence, Fields: map[string]string{"body": sentence}}
		}
		return a, err
	}
	if part.short || part.left != 0 {
		s.dropBlob(ctx, key)
		return a, Errorf(EInvalid, "The body ended inside a part.")
	}
	// One byte more than the part is a body too long.
	if extra, _ := body.Read(make([]byte, 1)); extra > 0 {
		s.dropBlob(ctx, key)
		return a, errPartTooLong(want)
	}
	typ, exe := a.Type, a.Executable
	if head != nil && !a.ClientSealed {
		typ, exe = SniffAttachment(a.Name, head.buf)
	}
	if err := s.checkSealedPart(ctx, a, head); err != nil {
		s.dropBlob(ctx, key)
		return a, err
	}
	next, err := s.Attachments.AddAttachmentPart(ctx, a.ID, i, token, typ, exe, s.Clock.Now())
	if err != nil {
		s.dropBlob(ctx, key)
		if ErrorCode(err) == EConflict {
			if cur, err2 := s.Attachments.Attachment(ctx, a.ID); err2 == nil {
				a = cur
			}
		}
		return a, err
	}
	return next, nil
}

func errPartTooLong(want int64) error {
	sentence := "A request carries one part: at most " + FormatBytes(want) + " here."
	return &Error{Code: ETooLarge, Message: sentence, Fields: map[string]string{"body": sentence}}
}

// dropBlob removes a blob that no record will list, even when the
// request's context is gone; a failure leaves an orphan for gc.
func (s *AttachmentService) dropBlob(ctx context.Context, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = s.Blobs.DeleteBlob(ctx, key)
}

// exactReader reads exactly left bytes of r: an EOF before them is
// errShortPart.
type exactReader struct {
	r     io.Reader
	left  int64
	short bool
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF {
		if e.left > 0 {
			e.short = true
			return n, errShortPart
		}
		return n, io.EOF
	}
	if err != nil {
		e.short = true
	}
	return n, err
}

// headReader keeps the first 512 bytes read through it (for sniffing).
type headReader struct {
	r   io.Reader
	buf []byte
}

func (h *headReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if room := 512 - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(n, room)]...)
	}
	return n, err
}

package core

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
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
	return s.Attachments.MessageAttachments(ctx, m.ID)
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
	if i == 0 && !a.ClientSealed {
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
	if head != nil {
		typ, exe = SniffAttachment(a.Name, head.buf)
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

// Open returns a complete file of the author for reading at any offset:
// Read and Seek open only the parts and chunks the bytes read span. Close
// it after.
func (s *AttachmentService) Open(ctx context.Context, messageID, id string) (*Attachment, *AttachmentReader, error) {
	a, err := s.file(ctx, ScopeMessagesRead, messageID, id)
	if err != nil {
		return nil, nil, err
	}
	if a.State != AttachmentComplete {
		return nil, nil, Errorf(EConflict, "This file is still being uploaded.")
	}
	return a, &AttachmentReader{ctx: ctx, s: s, a: a}, nil
}

// AttachmentReader reads a complete file's plaintext (an io.ReadSeeker,
// as http.ServeContent wants for ranges).
type AttachmentReader struct {
	ctx  context.Context
	s    *AttachmentService
	a    *Attachment
	pos  int64
	blob BlobReader
	cur  io.Reader
}

// Read reads from the current position.
func (f *AttachmentReader) Read(p []byte) (int, error) {
	for {
		if f.pos >= f.a.Size {
			return 0, io.EOF
		}
		if f.cur == nil {
			if err := f.openPart(); err != nil {
				return 0, err
			}
		}
		n, err := f.cur.Read(p)
		f.pos += int64(n)
		if err == io.EOF {
			f.closePart()
			err = nil
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

func (f *AttachmentReader) openPart() error {
	i := int(f.pos / f.a.PartSize)
	b, err := f.s.Blobs.OpenBlob(f.ctx, f.a.PartKey(i, f.a.Parts[i]))
	if err != nil {
		return err
	}
	if b.Size() != SealedAttachmentSize(f.a.PartLen(i)) {
		b.Close()
		return ErrAttachmentBroken
	}
	r, err := OpenAttachmentRange(f.s.Key, f.a.partSealID(i), b, b.Size(), f.pos-int64(i)*f.a.PartSize, -1)
	if err != nil {
		b.Close()
		return err
	}
	f.blob, f.cur = b, bufio.NewReaderSize(r, AttachmentChunkSize)
	return nil
}

func (f *AttachmentReader) closePart() {
	if f.blob != nil {
		f.blob.Close()
	}
	f.blob, f.cur = nil, nil
}

// Seek moves the position (io.Seeker).
func (f *AttachmentReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.pos
	case io.SeekEnd:
		offset += f.a.Size
	}
	if offset < 0 {
		return f.pos, Errorf(EInvalid, "The position is before the file's start.")
	}
	if offset != f.pos {
		f.closePart()
		f.pos = offset
	}
	return f.pos, nil
}

// Close releases the part being read.
func (f *AttachmentReader) Close() error {
	f.closePart()
	return nil
}

// Delete removes the author's file: its record, then its bytes (a crash
// between leaves orphans for Collect).
func (s *AttachmentService) Delete(ctx context.Context, messageID, id string) error {
	a, err := s.file(ctx, ScopeMessagesWrite, messageID, id)
	if err != nil {
		return err
	}
	if err := s.Attachments.DeleteAttachment(ctx, a.ID); err != nil {
		return err
	}
	return s.deleteBlobs(ctx, a.ID)
}

// deleteBlobs removes every blob of file id (every attempt's).
func (s *AttachmentService) deleteBlobs(ctx context.Context, id string) error {
	var keys []string
	if err := s.Blobs.ListBlobs(ctx, AttachmentBlobPrefix+id+"/", func(key string, _ int64) error {
		keys = append(keys, key)
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.Blobs.DeleteBlob(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// GCReport is what Collect found and removed.
type GCReport struct {
	StaleUploads int   // incomplete uploads older than the limit, removed
	Orphans      int   // blobs no record lists, removed
	OrphanBytes  int64 // their sealed bytes
	Kept         int   // blobs of live files, kept
}

// Collect removes what no file needs: uploads left incomplete for longer
// than stale (zero: DefaultStaleUpload), then every blob under
// AttachmentBlobPrefix that no record lists. A blob of an upload still
// under way whose part is not yet listed (it may be being stored) is kept:
// a record exists before its first blob, so a blob whose file has no
// record is an orphan, and one of a listed part with another token is a
// failed attempt.
//
// A store that lists no file at all while the storage holds blobs is most
// likely not the store those blobs belong to (a `store copy`, which does
// not carry files yet, or a wrong bucket): Collect then removes nothing
// and says so, unless force.
func (s *AttachmentService) Collect(ctx context.Context, stale time.Duration, force bool) (GCReport, error) {
	var rep GCReport
	if stale <= 0 {
		stale = DefaultStaleUpload
	}
	cutoff := s.Clock.Now().Add(-stale)
	var old []string
	records := 0
	if err := s.Attachments.EachAttachment(ctx, func(a *Attachment) error {
		records++
		if a.State == AttachmentUploading && a.CreatedAt.Before(cutoff) {
			old = append(old, a.ID)
		}
		return nil
	}); err != nil {
		return rep, err
	}
	for _, id := range old {
		if err := s.Attachments.DeleteAttachment(ctx, id); err != nil {
			return rep, err
		}
		rep.StaleUploads++
	}
	// The blobs first, then the records: a blob listed before its record
	// was read had its record made before it.
	type blob struct {
		key  string
		size int64
	}
	var blobs []blob
	if err := s.Blobs.ListBlobs(ctx, AttachmentBlobPrefix, func(key string, size int64) error {
		blobs = append(blobs, blob{key, size})
		return nil
	}); err != nil {
		return rep, err
	}
	if records == 0 && len(blobs) > 0 && !force {
		return rep, Errorf(EConflict, "The store lists no file but the storage holds %d parts: they may be another store's "+
			"(store copy does not carry files yet, or another bucket). Nothing was removed; run with --force to remove them.", len(blobs))
	}
	byID := map[string]*Attachment{}
	for _, b := range blobs {
		id, _, _, ok := parsePartKey(b.key)
		if !ok {
			continue
		}
		if _, seen := byID[id]; seen {
			continue
		}
		a, err := s.Attachments.Attachment(ctx, id)
		if ErrorCode(err) == EAttachmentNotFound {
			byID[id] = nil
			continue
		}
		if err != nil {
			return rep, err
		}
		byID[id] = a
	}
	for _, b := range blobs {
		id, index, token, ok := parsePartKey(b.key)
		a := byID[id]
		live := ok && a != nil && (index < len(a.Parts) && a.Parts[index] == token ||
			index >= len(a.Parts) && a.State == AttachmentUploading)
		if live {
			rep.Kept++
			continue
		}
		if err := s.Blobs.DeleteBlob(ctx, b.key); err != nil {
			return rep, err
		}
		rep.Orphans++
		rep.OrphanBytes += b.size
	}
	return rep, nil
}

// parsePartKey reads att/ID/iiiii.TOKEN.
func parsePartKey(key string) (id string, index int, token string, ok bool) {
	rest, found := strings.CutPrefix(key, AttachmentBlobPrefix)
	if !found {
		return "", 0, "", false
	}
	id, part, found := strings.Cut(rest, "/")
	num, token, dot := strings.Cut(part, ".")
	index, err := strconv.Atoi(num)
	if !found || !dot || err != nil || id == "" || token == "" || index < 0 || len(num) < 5 {
		return "", 0, "", false
	}
	return id, index, token, true
}

// DeleteMessageFiles removes the bytes of the files a deleted message had
// (its records went with it): what MessageService does after a delete.
func (s *AttachmentService) DeleteMessageFiles(ctx context.Context, files []*Attachment) error {
	var errs []error
	for _, a := range files {
		errs = append(errs, s.deleteBlobs(ctx, a.ID))
	}
	return errors.Join(errs...)
}

// FileBytes removes the bytes of files whose records a deletion of their
// message or account took (the store deletes the records in the deletion's
// transaction; the bytes are in the BlobStore). A deletion gathers the
// files first, deletes, then removes their bytes; a crash between leaves
// orphans that Collect removes.
type FileBytes interface {
	MessageFiles(ctx context.Context, messageID string) ([]*Attachment, error)
	UserFiles(ctx context.Context, userID string) ([]*Attachment, error)
	DeleteMessageFiles(ctx context.Context, files []*Attachment) error
}

var _ FileBytes = (*AttachmentService)(nil)

// MessageFiles are the files of a message about to be deleted.
func (s *AttachmentService) MessageFiles(ctx context.Context, messageID string) ([]*Attachment, error) {
	return s.Attachments.MessageAttachments(ctx, messageID)
}

// UserFiles are the files of an account about to be deleted.
func (s *AttachmentService) UserFiles(ctx context.Context, userID string) ([]*Attachment, error) {
	var files []*Attachment
	err := s.Attachments.EachAttachment(ctx, func(a *Attachment) error {
		if a.Owner == userID {
			files = append(files, a)
		}
		return nil
	})
	return files, err
}

// deleting runs del between gathering the files of a message (or, with
// message "", of user) and removing their bytes. Bytes that fail to go are
// orphans for Collect: the deletion itself has happened.
func deleting(ctx context.Context, files FileBytes, message, user string, del func() error) error {
	if files == nil {
		return del()
	}
	var gathered []*Attachment
	var err error
	if message != "" {
		gathered, err = files.MessageFiles(ctx, message)
	} else {
		gathered, err = files.UserFiles(ctx, user)
	}
	if err != nil {
		return err
	}
	if err := del(); err != nil {
		return err
	}
	_ = files.DeleteMessageFiles(ctx, gathered)
	return nil
}

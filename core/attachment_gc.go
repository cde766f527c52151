package core

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

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
	return s.Attachments.OwnerAttachments(ctx, userID)
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

package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/transfer"
)

// The attachments' records (schema version 18, issue 33; their bytes are
// blobs of a core.BlobStore):
//
//	attachments:               id -> attachmentRecord (JSON, the name sealed)
//	attachments_by_message:    ownerPrefix(message id)|id
//	attachments_by_owner:      ownerPrefix(owner)|id -> size (uint64, big-endian)
//
// DeleteMessage deletes its message's, DeleteUser the user's.
var (
	bucketAttachments          = []byte("attachments")
	bucketAttachmentsByMessage = []byte("attachments_by_message")
	bucketAttachmentsByOwner   = []byte("attachments_by_owner")
)

// createAttachmentBuckets is version 18.
func createAttachmentBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketAttachments, bucketAttachmentsByMessage, bucketAttachmentsByOwner} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

type attachmentRecord struct {
	MessageID    string   `json:"m"`
	Owner        string   `json:"o"`
	Name         []byte   `json:"n"` // sealed (seal.SealAttachmentName)
	Type         string   `json:"t,omitempty"`
	Size         int64    `json:"s"`
	Executable   bool     `json:"x,omitempty"`
	ClientSealed bool     `json:"cs,omitempty"`
	PartSize     int64    `json:"ps"`
	Parts        []string `json:"p,omitempty"`
	State        string   `json:"st"`
	CreatedAt    int64    `json:"c"`
	CompletedAt  int64    `json:"d,omitempty"`
	// Downloads are the recipients' downloads from their links
	// (core.AttachmentDownloadStore), kept with the file: no schema
	// change, deleted with it.
	Downloads []downloadRecord `json:"dl,omitempty"`
}

// downloadRecord is one recipient's downloads of a file.
type downloadRecord struct {
	Recipient int   `json:"r"`
	Count     int   `json:"n"`
	FirstAt   int64 `json:"f"`
	LastAt    int64 `json:"l"`
}

// encodeAttachment is a's record, keeping the downloads counted in old
// (the record it replaces; nil: none).
func (s *DB) encodeAttachment(a *core.Attachment, old []byte) []byte {
	r := attachmentRecord{MessageID: a.MessageID, Owner: a.Owner, Name: s.seal.SealAttachmentName(a.ID, a.Name),
		Type: a.Type, Size: a.Size, Executable: a.Executable, ClientSealed: a.ClientSealed, PartSize: a.PartSize,
		Parts: a.Parts, State: string(a.State), CreatedAt: a.CreatedAt.UnixNano()}
	if !a.CompletedAt.IsZero() {
		r.CompletedAt = a.CompletedAt.UnixNano()
	}
	if old != nil {
		var o attachmentRecord
		if json.Unmarshal(old, &o) == nil {
			r.Downloads = o.Downloads
		}
	}
	b, _ := json.Marshal(r) // plain fields: cannot fail
	return b
}

func (s *DB) decodeAttachment(id string, v []byte) (*core.Attachment, error) {
	var r attachmentRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, err
	}
	name, err := s.seal.OpenAttachmentName(id, r.Name)
	if err != nil {
		return nil, err
	}
	a := &core.Attachment{ID: id, MessageID: r.MessageID, Owner: r.Owner, Name: name, Type: r.Type, Size: r.Size,
		Executable: r.Executable, ClientSealed: r.ClientSealed, PartSize: r.PartSize, Parts: r.Parts,
		State: core.AttachmentState(r.State), CreatedAt: time.Unix(0, r.CreatedAt).UTC()}
	if r.CompletedAt != 0 {
		a.CompletedAt = time.Unix(0, r.CompletedAt).UTC()
	}
	return a, nil
}

// CreateAttachment keeps the new upload a, reserving its size under q. The
// store's one writer at a time makes the sums and the put one step.
func (s *DB) CreateAttachment(ctx context.Context, a *core.Attachment, q core.AttachmentQuota) error {
	if err := core.ValidID("attachment", a.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		m, err := s.findMessage(tx, a.MessageID)
		if err != nil {
			return err
		}
		if m.Owner != a.Owner {
			return core.ErrMessageNotFound()
		}
		if tx.Bucket(bucketAttachments).Get([]byte(a.ID)) != nil {
			return core.Errorf(core.EConflict, "This file already exists.")
		}
		files, messageBytes := 0, int64(0)
		for _, k := range prefixKeys(tx.Bucket(bucketAttachmentsByMessage), ownerPrefix(a.MessageID)) {
			id := k[len(ownerPrefix(a.MessageID)):]
			files++
			messageBytes += sizeOf(tx.Bucket(bucketAttachmentsByOwner).Get(ownerID(a.Owner, string(id))))
		}
		var accountBytes int64
		c := tx.Bucket(bucketAttachmentsByOwner).Cursor()
		prefix := ownerPrefix(a.Owner)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			accountBytes += sizeOf(v)
		}
		if err := core.CheckAttachmentQuota(q, a.Size, files, messageBytes, accountBytes); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAttachments).Put([]byte(a.ID), s.encodeAttachment(a, nil)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAttachmentsByMessage).Put(ownerID(a.MessageID, a.ID), nil); err != nil {
			return err
		}
		return tx.Bucket(bucketAttachmentsByOwner).Put(ownerID(a.Owner, a.ID), binary.BigEndian.AppendUint64(nil, uint64(a.Size)))
	})
}

func sizeOf(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// Attachment returns the attachment id.
func (s *DB) Attachment(ctx context.Context, id string) (*core.Attachment, error) {
	var a *core.Attachment
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		a, err = s.findAttachment(tx, id)
		return err
	})
	return a, err
}

func (s *DB) findAttachment(tx *bbolt.Tx, id string) (*core.Attachment, error) {
	v := tx.Bucket(bucketAttachments).Get([]byte(id))
	if v == nil {
		return nil, core.ErrAttachmentNotFound()
	}
	return s.decodeAttachment(id, v)
}

// MessageAttachments returns the message's attachments, oldest first.
func (s *DB) MessageAttachments(ctx context.Context, messageID string) ([]*core.Attachment, error) {
	return s.attachmentsIndexed(ctx, bucketAttachmentsByMessage, messageID)
}

// OwnerAttachments returns the owner's attachments, oldest first.
func (s *DB) OwnerAttachments(ctx context.Context, owner string) ([]*core.Attachment, error) {
	return s.attachmentsIndexed(ctx, bucketAttachmentsByOwner, owner)
}

// attachmentsIndexed returns the attachments an index (by message or by
// owner) lists under key, oldest first.
func (s *DB) attachmentsIndexed(ctx context.Context, index []byte, key string) ([]*core.Attachment, error) {
	var as []*core.Attachment
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		prefix := ownerPrefix(key)
		for _, k := range prefixKeys(tx.Bucket(index), prefix) {
			a, err := s.findAttachment(tx, string(k[len(prefix):]))
			if err != nil {
				return err
			}
			as = append(as, a)
		}
		return nil
	})
	sortAttachments(as)
	return as, err
}

func sortAttachments(as []*core.Attachment) {
	slices.SortFunc(as, func(a, b *core.Attachment) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare([]byte(a.ID), []byte(b.ID))
	})
}

// AddAttachmentPart records part index of id as stored by token.
func (s *DB) AddAttachmentPart(ctx context.Context, id string, index int, token, typ string, executable bool, now time.Time) (*core.Attachment, error) {
	var a *core.Attachment
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		var err error
		if a, err = s.findAttachment(tx, id); err != nil {
			return err
		}
		if err := core.AddPart(a, index, token, typ, executable, now); err != nil {
			return err
		}
		return tx.Bucket(bucketAttachments).Put([]byte(id), s.encodeAttachment(a, tx.Bucket(bucketAttachments).Get([]byte(id))))
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// DeleteAttachment deletes the record of id.
func (s *DB) DeleteAttachment(ctx context.Context, id string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error { return s.deleteAttachment(tx, id) })
}

func (s *DB) deleteAttachment(tx *bbolt.Tx, id string) error {
	v := tx.Bucket(bucketAttachments).Get([]byte(id))
	if v == nil {
		return nil
	}
	var r attachmentRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return err
	}
	if err := tx.Bucket(bucketAttachmentsByMessage).Delete(ownerID(r.MessageID, id)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketAttachmentsByOwner).Delete(ownerID(r.Owner, id)); err != nil {
		return err
	}
	return tx.Bucket(bucketAttachments).Delete([]byte(id))
}

// deleteMessageAttachments deletes the records of the message's files
// (DeleteMessage).
func (s *DB) deleteMessageAttachments(tx *bbolt.Tx, messageID string) error {
	prefix := ownerPrefix(messageID)
	for _, k := range prefixKeys(tx.Bucket(bucketAttachmentsByMessage), prefix) {
		if err := s.deleteAttachment(tx, string(k[len(prefix):])); err != nil {
			return err
		}
	}
	return nil
}

// deleteUserAttachments deletes the records of the user's files
// (DeleteUser).
func (s *DB) deleteUserAttachments(tx *bbolt.Tx, owner string) error {
	prefix := ownerPrefix(owner)
	for _, k := range prefixKeys(tx.Bucket(bucketAttachmentsByOwner), prefix) {
		if err := s.deleteAttachment(tx, string(k[len(prefix):])); err != nil {
			return err
		}
	}
	return nil
}

// EachAttachment calls fn with every attachment, from one read.
func (s *DB) EachAttachment(ctx context.Context, fn func(*core.Attachment) error) error {
	return s.view(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketAttachments).ForEach(func(k, v []byte) error {
			a, err := s.decodeAttachment(string(k), v)
			if err != nil {
				return err
			}
			return fn(a)
		})
	})
}

// exportAttachment is the record of file id as stored, its name sealed
// (store copy).
func exportAttachment(id string, v []byte) (*transfer.Attachment, error) {
	var r attachmentRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("decode the record of file %q: %w", id, err)
	}
	a := &transfer.Attachment{ID: id, MessageID: r.MessageID, Owner: r.Owner, Name: r.Name, Type: r.Type,
		Size: r.Size, PartSize: r.PartSize, Executable: r.Executable, ClientSealed: r.ClientSealed,
		Parts: r.Parts, State: r.State, CreatedAt: time.Unix(0, r.CreatedAt).UTC()}
	if r.CompletedAt != 0 {
		a.CompletedAt = time.Unix(0, r.CompletedAt).UTC()
	}
	for _, d := range r.Downloads {
		a.Downloads = append(a.Downloads, core.AttachmentDownload{Recipient: d.Recipient, Count: d.Count,
			FirstAt: time.Unix(0, d.FirstAt).UTC(), LastAt: time.Unix(0, d.LastAt).UTC()})
	}
	return a, nil
}

// importAttachment writes the record of a file with its two indexes, with
// put (Import's).
func importAttachment(tx *bbolt.Tx, a *transfer.Attachment, put func(bucket, key, v []byte, write func(old []byte) error) error) error {
	for _, id := range []struct{ what, id string }{{"attachment", a.ID}, {"message", a.MessageID}, {"user", a.Owner}} {
		if err := core.ValidID(id.what, id.id); err != nil {
			return err
		}
	}
	r := attachmentRecord{MessageID: a.MessageID, Owner: a.Owner, Name: a.Name, Type: a.Type, Size: a.Size,
		Executable: a.Executable, ClientSealed: a.ClientSealed, PartSize: a.PartSize, Parts: a.Parts,
		State: a.State, CreatedAt: a.CreatedAt.UnixNano()}
	if !a.CompletedAt.IsZero() {
		r.CompletedAt = a.CompletedAt.UnixNano()
	}
	for _, d := range a.Downloads {
		r.Downloads = append(r.Downloads, downloadRecord{Recipient: d.Recipient, Count: d.Count,
			FirstAt: d.FirstAt.UnixNano(), LastAt: d.LastAt.UnixNano()})
	}
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	key := []byte(a.ID)
	return put(bucketAttachments, key, v, func([]byte) error {
		if err := tx.Bucket(bucketAttachments).Put(key, v); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAttachmentsByMessage).Put(ownerID(a.MessageID, a.ID), nil); err != nil {
			return err
		}
		return tx.Bucket(bucketAttachmentsByOwner).Put(ownerID(a.Owner, a.ID), binary.BigEndian.AppendUint64(nil, uint64(a.Size)))
	})
}

package bolt

import (
	"context"
	"encoding/json"
	"time"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
)

// CountAttachmentDownload adds one download of file id by recipient, in
// the file's record (attachmentRecord.Downloads).
func (s *DB) CountAttachmentDownload(ctx context.Context, id string, recipient int, at time.Time) (int, error) {
	var n int
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAttachments)
		v := b.Get([]byte(id))
		if v == nil {
			return core.ErrAttachmentNotFound()
		}
		var r attachmentRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		i := 0
		for i < len(r.Downloads) && r.Downloads[i].Recipient != recipient {
			i++
		}
		if i == len(r.Downloads) {
			r.Downloads = append(r.Downloads, downloadRecord{Recipient: recipient, FirstAt: at.UnixNano()})
		}
		d := &r.Downloads[i]
		d.Count++
		d.LastAt = at.UnixNano()
		n = d.Count
		nv, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return b.Put([]byte(id), nv)
	})
	return n, err
}

// AttachmentDownloads returns the counts of file id, by recipient; none
// for a file that is gone.
func (s *DB) AttachmentDownloads(ctx context.Context, id string) ([]core.AttachmentDownload, error) {
	var out []core.AttachmentDownload
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketAttachments).Get([]byte(id))
		if v == nil {
			return nil // none, as on PostgreSQL
		}
		var r attachmentRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		for _, d := range r.Downloads {
			out = append(out, core.AttachmentDownload{FileID: id, Recipient: d.Recipient, Count: d.Count,
				FirstAt: time.Unix(0, d.FirstAt).UTC(), LastAt: time.Unix(0, d.LastAt).UTC()})
		}
		return nil
	})
	return out, err
}

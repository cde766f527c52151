package postgres

import (
	"context"
	"time"

	"github.com/sendlater/sendlater/core"
)

// CountAttachmentDownload adds one download of file id by recipient: one
// upsert, so that downloads at once each count (migration 0028).
func (s *DB) CountAttachmentDownload(ctx context.Context, id string, recipient int, at time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `insert into attachment_downloads (attachment_id, recipient, count, first_at, last_at)
		values ($1, $2, 1, $3, $3)
		on conflict (attachment_id, recipient) do update set count = attachment_downloads.count + 1, last_at = excluded.last_at
		returning count`, id, recipient, at).Scan(&n)
	return n, wrapErr(err)
}

// AttachmentDownloads returns the counts of file id, by recipient.
func (s *DB) AttachmentDownloads(ctx context.Context, id string) ([]core.AttachmentDownload, error) {
	rows, err := s.pool.Query(ctx, `select recipient, count, first_at, last_at from attachment_downloads
		where attachment_id = $1 order by recipient`, id)
	if err != nil {
		return nil, wrapErr(err)
	}
	defer rows.Close()
	var out []core.AttachmentDownload
	for rows.Next() {
		d := core.AttachmentDownload{FileID: id}
		if err := rows.Scan(&d.Recipient, &d.Count, &d.FirstAt, &d.LastAt); err != nil {
			return nil, wrapErr(err)
		}
		d.FirstAt, d.LastAt = d.FirstAt.UTC(), d.LastAt.UTC()
		out = append(out, d)
	}
	return out, wrapErr(rows.Err())
}

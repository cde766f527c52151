package postgres

import (
	"context"
	"encoding/json"
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

// attachmentDownloadsJSON is a column of the export of attachments: the
// file's downloads as [[recipient, count, first, last], ...], the times
// in microseconds since the epoch (store copy).
const attachmentDownloadsJSON = `(select coalesce(json_agg(json_build_array(d.recipient, d.count,
	(extract(epoch from d.first_at) * 1000000)::bigint, (extract(epoch from d.last_at) * 1000000)::bigint) order by d.recipient), '[]')
	from attachment_downloads d where d.attachment_id = attachments.id)`

// upsertAttachmentDownload writes a copied file's downloads: a rerun of
// the copy sets them again, never adds, and changes no row it finds equal.
var upsertAttachmentDownload = upsert("attachment_downloads", "attachment_id, recipient",
	"attachment_id, recipient, count, first_at, last_at")

// decodeDownloads reads attachmentDownloadsJSON.
func decodeDownloads(b []byte) ([]core.AttachmentDownload, error) {
	var rows [][4]int64
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, err
	}
	var out []core.AttachmentDownload
	for _, r := range rows {
		out = append(out, core.AttachmentDownload{Recipient: int(r[0]), Count: int(r[1]),
			FirstAt: time.UnixMicro(r[2]).UTC(), LastAt: time.UnixMicro(r[3]).UTC()})
	}
	return out, nil
}

package core

import (
	"context"
	"fmt"
	"time"
)

// AdminFiles is the operator's care of the attachments' storage.
type AdminFiles interface {
	// CollectFiles removes the files' bytes no record lists (a crash's
	// orphans) and uploads left incomplete longer than the configured
	// time (audited): `sendlater attachments gc`.
	// force removes blobs even when the store lists no file at all.
	CollectFiles(ctx context.Context, force bool) (GCReport, error)
}

// FileCollector is AttachmentService.Collect.
type FileCollector interface {
	Collect(ctx context.Context, stale time.Duration, force bool) (GCReport, error)
}

// CollectFiles runs the collection with the configured StaleUploads.
func (s *AdminService) CollectFiles(ctx context.Context, force bool) (GCReport, error) {
	if s.Collector == nil {
		return GCReport{}, Errorf(EUnavailable, "This process keeps no files (attachments.storage).")
	}
	rep, err := s.Collector.Collect(ctx, s.StaleUploads, force)
	if err != nil {
		return rep, err
	}
	return rep, s.audit(ctx, "attachments.gc", "", rep.String())
}

// String is the report in one line.
func (r GCReport) String() string {
	return fmt.Sprintf("%d orphaned blobs removed (%s), %d stale uploads removed, %d blobs of live files kept",
		r.Orphans, FormatBytes(r.OrphanBytes), r.StaleUploads, r.Kept)
}

package bolt

import (
	"context"
	"encoding/binary"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/core"
)

// bucketPageViews holds the page-view counters (schema version 10):
// day|0|path -> views, uint64 big-endian. Days are fixed-width, so the keys
// sort by day, then path.
var bucketPageViews = []byte("page_views")

// createPageViewBucket is version 10.
func createPageViewBucket(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketPageViews)
	return err
}

func pageViewKey(day, path string) []byte {
	return append(append([]byte(day), 0), path...)
}

// pageViewCount reads a counter's key and value; ok is false for bytes
// that are not a counter.
func pageViewCount(k, v []byte) (c core.PageViewCount, ok bool) {
	day, path, ok := strings.Cut(string(k), "\x00")
	if !ok || len(v) != 8 {
		return c, false
	}
	return core.PageViewCount{Day: day, Path: path, Views: int64(binary.BigEndian.Uint64(v))}, true
}

// CountPageView adds one view of path on day.
func (s *DB) CountPageView(ctx context.Context, day, path string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPageViews)
		k := pageViewKey(day, path)
		var n uint64
		if v := b.Get(k); len(v) == 8 {
			n = binary.BigEndian.Uint64(v)
		}
		return b.Put(k, binary.BigEndian.AppendUint64(nil, n+1))
	})
}

// PageViews returns the counters of since and later, by day, then path.
func (s *DB) PageViews(ctx context.Context, since string) ([]core.PageViewCount, error) {
	out := []core.PageViewCount{}
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketPageViews).Cursor()
		for k, v := c.Seek([]byte(since)); k != nil; k, v = c.Next() {
			if pc, ok := pageViewCount(k, v); ok {
				out = append(out, pc)
			}
		}
		return nil
	})
	return out, err
}

package bolt

import "go.etcd.io/bbolt"

// BlobLeftovers counts the stored chunks and the puts still marked
// pending: what a put cut short could leave behind.
func (s *DB) BlobLeftovers() (chunks, pending int, err error) {
	err = s.db.View(func(tx *bbolt.Tx) error {
		chunks = tx.Bucket(bucketBlobChunks).Stats().KeyN
		pending = tx.Bucket(bucketBlobsPending).Stats().KeyN
		return nil
	})
	return chunks, pending, err
}

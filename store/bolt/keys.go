package bolt

import (
	"bytes"
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"
)

// Index keys sort as bytes: times are fixed-width big-endian unix nanoseconds
// with the sign bit flipped (so times before 1970 sort first too), and an id
// owned by someone is prefixed with the owner's id and its length.

const timeKeyLen = 8

// appendTime appends t so that keys sort by time, earliest first.
func appendTime(b []byte, t time.Time) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(t.UnixNano())^(1<<63))
}

// keyTime is the time appendTime put at the start of k.
func keyTime(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k[:timeKeyLen])^(1<<63)))
}

// appendNewestFirst appends t so that keys sort by time, latest first.
func appendNewestFirst(b []byte, t time.Time) []byte {
	return binary.BigEndian.AppendUint64(b, ^(uint64(t.UnixNano()) ^ (1 << 63)))
}

// timeAt reads the time appendTime wrote at the start of k.
func timeAt(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k)^(1<<63))).UTC()
}

// timeID is a time-ordered index key: time|id.
func timeID(t time.Time, id string) []byte {
	return append(appendTime(make([]byte, 0, timeKeyLen+len(id)), t), id...)
}

// newestFirstID is time|id ordered latest first.
func newestFirstID(t time.Time, id string) []byte {
	return append(appendNewestFirst(make([]byte, 0, timeKeyLen+len(id)), t), id...)
}

// ownerPrefix is the prefix of every index key of one owner: the id's length
// (two bytes) and the id, so no owner's prefix is another's.
func ownerPrefix(owner string) []byte {
	b := make([]byte, 0, 2+len(owner)+timeKeyLen+20)
	b = binary.BigEndian.AppendUint16(b, uint16(len(owner)))
	return append(b, owner...)
}

// ownerID is ownerPrefix|id.
func ownerID(owner, id string) []byte { return append(ownerPrefix(owner), id...) }

// ownerNewestFirstID is ownerPrefix|time latest first|id.
func ownerNewestFirstID(owner string, t time.Time, id string) []byte {
	return append(appendNewestFirst(ownerPrefix(owner), t), id...)
}

// idAfter returns the id at the end of an index key whose first n bytes are
// its prefix and time.
func idAfter(k []byte, n int) string { return string(k[n:]) }

// beforeOrAt reports whether the time at the start of key k is at or before
// the encoded time until.
func beforeOrAt(k, until []byte) bool {
	return len(k) >= timeKeyLen && bytes.Compare(k[:timeKeyLen], until) <= 0
}

// countPrefix counts the keys of b that start with prefix.
func countPrefix(b *bbolt.Bucket, prefix []byte) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}

// prefixKeys returns copies of the keys of b that start with prefix.
func prefixKeys(b *bbolt.Bucket, prefix []byte) [][]byte {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	return keys
}

// deleteRef deletes a key -> id reference only while it still points at id,
// so a stale entry never removes another record's.
func deleteRef(b *bbolt.Bucket, key []byte, id string) error {
	if string(b.Get(key)) != id {
		return nil
	}
	return b.Delete(key)
}

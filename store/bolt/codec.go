package bolt

import (
	"encoding/binary"
	"errors"
)

// A compact binary codec for the hottest record, the message: listing 20
// messages with JSON spent most of its time scanning base64 ciphertext. A
// record is its version byte, then its fields in a fixed order: integers as
// varints, strings and bytes as a uvarint length and the bytes. A new record
// version appends fields; a reader knows every version it may meet.

type recordWriter struct{ b []byte }

func (w *recordWriter) int(v int64)    { w.b = binary.AppendVarint(w.b, v) }
func (w *recordWriter) str(s string)   { w.b = append(binary.AppendUvarint(w.b, uint64(len(s))), s...) }
func (w *recordWriter) bytes(p []byte) { w.b = append(binary.AppendUvarint(w.b, uint64(len(p))), p...) }
func (w *recordWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

var errTruncated = errors.New("record truncated")

// recordReader reads what recordWriter wrote. The first error sticks and
// later reads return zero values; check err once at the end.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errTruncated
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes returns a slice of the record itself: within a bbolt transaction it
// points into the mmap, so it must not outlive the transaction.
func (r *recordReader) bytes() []byte {
	if r.err != nil {
		return nil
	}
	l, n := binary.Uvarint(r.b)
	if n <= 0 || l > uint64(len(r.b)-n) {
		r.err = errTruncated
		return nil
	}
	p := r.b[n : n+int(l)]
	r.b = r.b[n+int(l):]
	if len(p) == 0 {
		return nil
	}
	return p
}

func (r *recordReader) str() string { return string(r.bytes()) }

// intern reads a string that is usually one of known, returning that value
// instead of a new copy.
func (r *recordReader) intern(known []string) string {
	b := r.bytes()
	for _, k := range known {
		if string(b) == k {
			return k
		}
	}
	return string(b)
}

func (r *recordReader) bool() bool {
	if r.err != nil {
		return false
	}
	if len(r.b) == 0 {
		r.err = errTruncated
		return false
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v != 0
}

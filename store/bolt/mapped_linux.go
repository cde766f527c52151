//go:build linux

package bolt

import (
	"os"
	"syscall"
	"unsafe"

	bbolt "go.etcd.io/bbolt"
)

var pageSize = uintptr(os.Getpagesize())

// releaseMapped tells the kernel this process is done with the whole
// pages of v, a value read in the read transaction tx from bbolt's mapping
// of the file: they leave the process's resident set (they stay in the
// page cache; a later read maps them again). A file's chunks read for a
// download would otherwise stay resident, the file's whole size on top
// of the server's memory (docs/benchmarks-history.md#attachments-proofs-a-25-mb-files-memory-8-uploads-beside-a-list-issue-33). The bytes are
// unchanged (a shared, read-only file mapping), so a failure changes
// nothing and is ignored. v must lie inside the mapping, which is
// checked: MADV_DONTNEED on the Go heap would zero it.
func releaseMapped(tx *bbolt.Tx, v []byte) {
	if len(v) < int(2*pageSize) || tx.Writable() {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	base := tx.DB().Info().Data // the mapping cannot move while tx is open
	if start < base || start+uintptr(len(v)) > base+uintptr(tx.Size()) {
		return
	}
	first := (start + pageSize - 1) &^ (pageSize - 1)
	last := (start + uintptr(len(v))) &^ (pageSize - 1)
	if last <= first {
		return
	}
	_ = syscall.Madvise(v[first-start:last-start], syscall.MADV_DONTNEED)
}

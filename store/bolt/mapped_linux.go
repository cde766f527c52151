//go:build linux

package bolt

import (
	"os"
	"syscall"
	"unsafe"
)

var pageSize = uintptr(os.Getpagesize())

// releaseMapped tells the kernel this process is done with the whole
// pages of v, a value read from bbolt's mapping of the file: they leave
// the process's resident set (they stay in the page cache; a later read
// maps them again). A file's chunks read for a download would otherwise
// stay resident, the file's whole size on top of the server's memory
// (docs/bench-attachproof.md). Only for values of a read transaction,
// which point into the mapping; the bytes are unchanged (a shared file
// mapping), so a failure changes nothing and is ignored.
func releaseMapped(v []byte) {
	if len(v) < int(2*pageSize) {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	first := (start + pageSize - 1) &^ (pageSize - 1)
	last := (start + uintptr(len(v))) &^ (pageSize - 1)
	if last <= first {
		return
	}
	_ = syscall.Madvise(v[first-start:last-start], syscall.MADV_DONTNEED)
}

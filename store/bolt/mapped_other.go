//go:build !linux

package bolt

// releaseMapped is Linux's only (mapped_linux.go): elsewhere the pages a
// download read stay resident until the kernel reclaims them.
func releaseMapped([]byte) {}

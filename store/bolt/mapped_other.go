//go:build !linux

package bolt

import bbolt "go.etcd.io/bbolt"

// releaseMapped is Linux's only (mapped_linux.go): elsewhere the pages a
// download read stay resident until the kernel reclaims them.
func releaseMapped(*bbolt.Tx, []byte) {}

//go:build !windows

package web

import "syscall"

// withUmask runs fn under the process's umask mask, so that what fn creates
// is never for a moment open to others.
func withUmask(mask int, fn func() error) error {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	return fn()
}

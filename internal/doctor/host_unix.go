//go:build unix

package doctor

import (
	"fmt"
	"io/fs"
	"syscall"
)

// diskSpace is the free space (for an unprivileged user) and the size of
// the file system holding dir.
func diskSpace(dir string) (free, total uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), nil
}

// owner is ", owner uid N" of fi.
func owner(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf(", owner uid %d", st.Uid)
	}
	return ""
}

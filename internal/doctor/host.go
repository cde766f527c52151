package doctor

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// The host's limits, documented in docs/ops.md.
const (
	// MinFreeBytes and MinFreePercent: the data directory's file system
	// with less free space than either is a problem. A full disk stops
	// every write of a bbolt store, and the outbox.
	MinFreeBytes   = 1 << 30
	MinFreePercent = 5
	// MaxClockSkew is how far this machine's clock may be from the
	// database's: due times are compared across the replicas and the
	// database, and one-time codes expire by the clock.
	MaxClockSkew = 2 * time.Second
)

// modesApply tells whether file modes mean anything here (not on Windows).
var modesApply = runtime.GOOS != "windows"

// CheckPrivateFile checks that the secret file at path (named by the
// setting key) is readable by its owner only: mode 0600 or stricter.
func (s *Section) CheckPrivateFile(check, key, path string) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		s.fail(check, fmt.Sprintf("cannot read %s (%s): %s", path, key, reason(err)),
			"give "+key+" a file that the user running sendlater can read")
	case !modesApply:
		s.Skip(check, path+": file modes are not checked on "+runtime.GOOS)
	case fi.Mode().Perm()&0o077 != 0:
		s.fail(check, fmt.Sprintf("%s is mode %04o: other users of this machine can read the secret in it (%s)", path, fi.Mode().Perm(), key),
			"chmod 600 "+path)
	default:
		s.pass(check, fmt.Sprintf("%s is mode %04o (its owner only)", path, fi.Mode().Perm()))
	}
}

// CheckPrivateDir checks that the data directory dir is its owner's only
// (mode 0700 or stricter): it holds the store, its key and the socket.
func (s *Section) CheckPrivateDir(check, dir string) {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		s.fail(check, fmt.Sprintf("cannot read the data directory %s: %s", dir, reason(err)),
			"point data_dir (--data-dir, SENDLATER_DATA_DIR) at the server's data directory")
	case !fi.IsDir():
		s.fail(check, dir+" is not a directory", "point data_dir at a directory")
	case !modesApply:
		s.Skip(check, dir+": file modes are not checked on "+runtime.GOOS)
	case fi.Mode().Perm()&0o077 != 0:
		s.fail(check, fmt.Sprintf("%s is mode %04o: other users of this machine can look into the store's directory", dir, fi.Mode().Perm()),
			"chmod 700 "+dir)
	default:
		s.pass(check, fmt.Sprintf("%s is mode %04o (its owner only)", dir, fi.Mode().Perm()))
	}
}

// CheckSocket checks the admin socket at path: absent (no server runs
// here), or a socket that only its owner (and group) may use, 0600 or
// 0660.
func (s *Section) CheckSocket(check, path string) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		s.Skip(check, "no server runs on this data directory (no socket at "+path+")")
		return
	case err != nil:
		s.fail(check, fmt.Sprintf("cannot read %s: %s", path, reason(err)), "run doctor as the user that runs sendlater serve")
		return
	case fi.Mode().Type() != fs.ModeSocket:
		s.fail(check, path+" is not a socket: the server cannot listen there", "remove "+path+" and restart sendlater serve")
		return
	case !modesApply:
		s.Skip(check, path+": file modes are not checked on "+runtime.GOOS)
		return
	case fi.Mode().Perm()&^0o660 != 0:
		s.fail(check, fmt.Sprintf("%s is mode %04o: users other than the server's may act as the operator through it", path, fi.Mode().Perm()),
			"chmod 600 "+path+" (sendlater serve makes it 0600 when it starts: was it changed by hand?)")
		return
	}
	answers := "a server answers on it"
	if conn, err := net.DialTimeout("unix", path, time.Second); err != nil {
		answers = "no server answers on it (left by a crash: the next sendlater serve replaces it)"
	} else {
		conn.Close()
	}
	s.pass(check, fmt.Sprintf("%s is mode %04o%s; %s", path, fi.Mode().Perm(), owner(fi), answers))
}

// CheckDisk checks the free space of the file system holding dir against
// MinFreeBytes and MinFreePercent.
func (s *Section) CheckDisk(check, dir string) {
	// A directory not made yet will be on its nearest parent's.
	for parent := filepath.Dir(dir); parent != dir; dir, parent = parent, filepath.Dir(parent) {
		if _, err := os.Stat(dir); err == nil {
			break
		}
	}
	free, total, err := diskSpace(dir)
	if err != nil {
		s.Skip(check, "cannot measure the free space of "+dir+": "+reason(err))
		return
	}
	pct := 100.0
	if total > 0 {
		pct = float64(free) * 100 / float64(total)
	}
	detail := fmt.Sprintf("%s free of %s (%.0f%%) on the file system of %s", bytesText(free), bytesText(total), pct, dir)
	if free < MinFreeBytes || pct < MinFreePercent {
		s.fail(check, detail+fmt.Sprintf(": below %s or %d%%, and a full disk stops every write of the store", bytesText(MinFreeBytes), MinFreePercent),
			"free space on that file system (old backups, logs), or move data_dir to a larger one")
		return
	}
	s.pass(check, detail)
}

// CheckClock compares the database's clock dbNow, read between sent and
// received on this machine's clock, with this machine's.
func (s *Section) CheckClock(check string, dbNow, sent, received time.Time) {
	rtt := received.Sub(sent)
	skew := dbNow.Sub(sent.Add(rtt / 2)) // > 0: the database is ahead
	abs := skew.Abs()
	// Half the round trip is the most the reading itself may be off.
	if abs > MaxClockSkew+rtt/2 {
		way := "ahead of" // the database is behind
		if skew > 0 {
			way = "behind"
		}
		s.fail(check, fmt.Sprintf("this machine's clock is %s %s the database's (allowed: %s): due times and expiries are compared across both",
			abs.Round(time.Millisecond), way, MaxClockSkew),
			"keep both clocks synchronized with NTP (systemd-timesyncd or chrony; `timedatectl` shows whether it runs)")
		return
	}
	s.pass(check, fmt.Sprintf("within %s of the database's (round trip %s)", abs.Round(time.Millisecond), rtt.Round(time.Millisecond)))
}

// FreeSpace is the free space (for an unprivileged user) of the file
// system holding dir.
func FreeSpace(dir string) (uint64, error) {
	free, _, err := diskSpace(dir)
	return free, err
}

// BytesText is n in GiB, MiB or KiB.
func BytesText(n uint64) string { return bytesText(n) }

// bytesText is n in GiB, MiB or KiB.
func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// reason is a file system error without the path it names.
func reason(err error) string {
	if os.IsNotExist(err) {
		return "it does not exist"
	}
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

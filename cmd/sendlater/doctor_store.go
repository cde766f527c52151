package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/doctor"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/web"
)

// doctorStore checks the store the config names, read-only.
func (a *app) doctorStore(ctx context.Context) (doctor.Section, error) {
	d := a.driver()
	return d.inspect(ctx, a, d.where(a.cfg), a.doctorKey()), nil
}

// doctorLockWait is how long doctor waits for a bbolt file's lock before
// asking the server that holds it for a copy.
const doctorLockWait = time.Second

// inspectBolt checks the bbolt file: opened read-only (never created), or,
// while a server holds it, a copy taken through the server's admin socket.
func inspectBolt(ctx context.Context, a *app, where target, key []byte) doctor.Section {
	path := where.value
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	s := doctor.Section{Name: "store", Title: "Store: bbolt " + path}
	in, err := bolt.Inspect(path, key, doctorLockWait)
	via := "opened read-only; nothing created or migrated"
	if core.ErrorCode(err) == core.EUnavailable {
		var copyErr error
		in, copyErr = inspectBoltCopy(ctx, a, key)
		if copyErr == nil {
			err = nil
			via = "held by the running server: checked a copy taken through its admin socket"
		} else {
			err = core.Errorf(core.EUnavailable, "%s Checking a copy instead failed: %v.", core.ErrorMessageOrText(err), copyErr)
		}
	}
	switch {
	case core.ErrorCode(err) == core.ENotFound:
		s.Fail("open", fmt.Sprintf("there is no store at %s (data_dir %s)", path, a.cfg.DataDir),
			"run doctor where the server runs, or give it the server's data directory (--data-dir, SENDLATER_DATA_DIR, --config); sendlater serve creates the store at its first start")
		return s
	case core.ErrorCode(err) == core.EUnavailable:
		s.Fail("open", core.ErrorMessageOrText(err),
			"run doctor as the user of sendlater serve (the admin socket is theirs), free disk space for the copy, or stop the process that holds the file (`fuser "+path+"` names it)")
		return s
	case err != nil:
		s.Fail("open", core.ErrorMessageOrText(err), "check the file's owner and mode (the user of sendlater serve, 0600) and that data_dir is the server's")
		return s
	}
	s.Pass("open", fmt.Sprintf("%s (%s)", via, doctor.BytesText(uint64(in.Size))))
	schemaCheck(&s, in.Version, in.Known,
		"start this version's sendlater serve once: it migrates the store as it opens it (`sendlater backup --out FILE` first)")
	keyCheck(&s, key != nil, in.KeyChecked, in.KeyOK)
	if len(in.Problems) == 0 {
		s.Pass("consistency", "bbolt's check found every page sound")
	} else {
		var first []string
		for _, p := range in.Problems[:min(3, len(in.Problems))] {
			first = append(first, p.Error())
		}
		s.Fail("consistency", fmt.Sprintf("bbolt's check found %d problems, first: %s", len(in.Problems), strings.Join(first, "; ")),
			"stop the server and restore the newest backup that `sendlater doctor store` finds sound (run it with --data-dir on a copy)")
	}
	s.Skip("clock", "a bbolt store has no clock of its own: only this machine's counts (keep it synchronized with NTP)")
	return s
}

// inspectBoltCopy copies the store through the running server's admin
// socket into a temporary file beside it and inspects the copy: bbolt's
// copy is one consistent transaction, page for page, so its check is the
// store's. The copy stays in the private data directory (never /tmp, which
// may be memory or shared) and is removed at once; it is made only when
// the disk keeps the store's size and MinFreeBytes free after it, so that
// doctor never fills the server's disk.
func inspectBoltCopy(ctx context.Context, a *app, key []byte) (bolt.Inspection, error) {
	var in bolt.Inspection
	c, err := web.DialAdmin(a.cfg.socketPath())
	if err != nil {
		return in, fmt.Errorf("no server answers on %s", a.cfg.socketPath())
	}
	fi, err := os.Stat(a.cfg.storePath())
	if err != nil {
		return in, err
	}
	free, err := doctor.FreeSpace(a.cfg.DataDir)
	if need := 2*uint64(fi.Size()) + doctor.MinFreeBytes; err == nil && free < need {
		return in, fmt.Errorf("a copy to check needs %s free in %s, and %s is", doctor.BytesText(need), a.cfg.DataDir, doctor.BytesText(free))
	}
	f, err := os.CreateTemp(a.cfg.DataDir, ".sendlater-doctor-*.db") // mode 0600
	if err != nil {
		return in, err
	}
	defer os.Remove(f.Name())
	_, err = c.Backup(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return in, fmt.Errorf("copying it through the admin socket: %s", core.ErrorMessageOrText(err))
	}
	return bolt.Inspect(f.Name(), key, doctorLockWait)
}

// inspectPostgres checks the database: reachable, its version, the
// migrations, the key and the clock.
func inspectPostgres(ctx context.Context, a *app, where target, key []byte) doctor.Section {
	s := doctor.Section{Name: "store", Title: "Store: PostgreSQL (" + where.setting + ")"}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	in, err := postgres.Inspect(ctx, where.value, key)
	if err != nil {
		s.Fail("reachable", core.ErrorMessageOrText(err),
			"check "+where.setting+" (host, port, database, user, password) and that the database server runs and lets this machine in (pg_hba.conf)")
		return s
	}
	s.Title = "Store: PostgreSQL " + in.Where
	s.Pass("reachable", "PostgreSQL "+in.ServerVersion+" answers")
	if !in.HasStore && len(in.Applied) == 0 {
		s.Fail("schema", "the schema holds no Sendlater store",
			"point store.url at the servers' database (and its search_path at their schema), or create the store: `sendlater migrate up`, or start sendlater serve")
	} else {
		version := 0
		contiguous := true
		for i, v := range in.Applied {
			contiguous = contiguous && v == i+1
			version = max(version, v)
		}
		if version <= in.Known && !contiguous {
			s.Fail("schema", fmt.Sprintf("schema_migrations lists %v: not every migration up to %d ran", in.Applied, version),
				"run `sendlater migrate up`: it applies the missing ones")
		} else {
			schemaCheck(&s, version, in.Known, "run `sendlater migrate up` (or start this version's sendlater serve: it migrates as it starts)")
		}
	}
	keyCheck(&s, key != nil, in.KeyChecked, in.KeyOK)
	s.CheckClock("clock", in.Now, in.Sent, in.Received)
	return s
}

// schemaCheck compares the store's schema version with the binary's.
func schemaCheck(s *doctor.Section, have, known int, migrateFix string) {
	switch {
	case have == known:
		s.Pass("schema", fmt.Sprintf("version %d, this sendlater's", have))
	case have < known:
		s.Fail("schema", fmt.Sprintf("version %d, behind this sendlater's %d: the store was last migrated by an older sendlater", have, known), migrateFix)
	default:
		s.Fail("schema", fmt.Sprintf("version %d, written by a newer sendlater (this one, %s, knows up to %d and refuses the store)", have, version, known),
			"run the newer sendlater that migrated it (upgrade this machine's binary); going back means restoring a backup made before the upgrade")
	}
}

// keyCheck reports whether the encryption key opens the store's key check.
func keyCheck(s *doctor.Section, haveKey, checked, ok bool) {
	switch {
	case !haveKey:
		s.Skip("key", "no encryption key at hand to try (the config section says why)")
	case !checked:
		s.Skip("key", "the store holds no key check yet")
	case ok:
		s.Pass("key", "the encryption key opens the store")
	default:
		s.Fail("key", "the encryption key does not open this store: it was sealed with another",
			"give the key it was made with (encryption_key_file or encryption_key; restore it from your backups)")
	}
}

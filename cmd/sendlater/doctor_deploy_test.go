package main_test

import (
	be "encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

var updateGolden = flag.Bool("update", false, "rewrite docs/cli/doctor.txt from the healthy run")

// deployment is a healthy installation: DKIM key, DNS records, an SMTP
// server that wants a login, and `sendlater serve` on a bbolt store.
type deployment struct {
	dir  string
	env  []string // doctor's: the server's and base_url
	srv  *server
	mail *smtptest.Server
}

func startDeployment(t *testing.T) *deployment {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "dkim.pem")
	r := mustRunEnv(t, dir, nil, "dkim", "keygen", "--type", "ed25519", "--out", keyFile, "--domain", "sendlater.test", "--selector", "s1")
	dns := dnstest.MustStart(t)
	dns.Add(t, strings.TrimSpace(r.stdout),
		`sendlater.test. 300 IN TXT "v=spf1 ip4:127.0.0.1 -all"`,
		`_dmarc.sendlater.test. 300 IN TXT "v=DMARC1; p=reject"`)
	mail := smtptest.Start(t, smtptest.WithAuth("mailer", "s3cret-pw"))
	env := []string{
		"SENDLATER_MAIL_FROM=Sendlater <noreply@sendlater.test>", "SENDLATER_MAIL_DNS_SERVER=" + dns.Addr,
		"SENDLATER_MAIL_SMTP_HOST=127.0.0.1", fmt.Sprintf("SENDLATER_MAIL_SMTP_PORT=%d", mail.Port()), "SENDLATER_MAIL_SMTP_TLS=none",
		"SENDLATER_MAIL_SMTP_USERNAME=mailer", "SENDLATER_MAIL_SMTP_PASSWORD=s3cret-pw",
		"SENDLATER_MAIL_DKIM_DOMAIN=sendlater.test", "SENDLATER_MAIL_DKIM_SELECTOR=s1", "SENDLATER_MAIL_DKIM_PRIVATE_KEY_FILE=" + keyFile,
	}
	srv := startServer(t, dir, env...)
	return &deployment{dir: dir, env: append(env, "SENDLATER_BASE_URL="+srv.url), srv: srv, mail: mail}
}

// doctor runs sendlater doctor ARGS with the deployment's environment and
// extra (later variables win).
func (d *deployment) doctor(t *testing.T, extra []string, args ...string) result {
	t.Helper()
	return run(t, d.dir, append(append([]string{}, d.env...), extra...), append([]string{"doctor"}, args...)...)
}

// assertOneProblem checks that r failed (exit 1) on exactly one check,
// the line want, with the fix fix under it.
func assertOneProblem(t *testing.T, what string, r result, want, fix string) {
	t.Helper()
	if r.code != 1 || strings.Count(r.stdout, "✗") != 1 || !strings.Contains(r.stdout, want) ||
		!strings.Contains(r.stdout, "      fix: "+fix) || !strings.Contains(r.stderr, "doctor found 1 problem") {
		t.Fatalf("%s: exit %d, want one ✗ %q with fix %q:\n%s%s", what, r.code, want, fix, r.stdout, r.stderr)
	}
}

// A healthy installation is all ✓ (and the clock's -, on bbolt) with exit
// 0, in text and JSON; each broken part is its own ✗ with its fix, exit 1.
func TestDoctorChecksADeployment(t *testing.T) {
	d := startDeployment(t)
	r := d.doctor(t, nil)
	if r.code != 0 || strings.Contains(r.stdout, "✗") || strings.Count(r.stdout, "✓") != 20 ||
		!strings.Contains(r.stdout, "✓ open: held by the running server: checked a copy taken through its admin socket") ||
		!strings.Contains(r.stdout, "- clock: a bbolt store has no clock of its own") {
		t.Fatalf("a healthy deployment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkGolden(t, d, r.stdout)

	r = d.doctor(t, nil, "--json")
	var checks []struct {
		Section, Check, Detail, Fix string
		OK, Skipped                 bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil || r.code != 0 {
		t.Fatalf("--json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	sections := map[string]int{}
	for _, c := range checks {
		sections[c.Section]++
		if !c.OK || c.Detail == "" || c.Fix != "" {
			t.Errorf("--json: %+v", c)
		}
	}
	if fmt.Sprint(sections) != "map[config:6 host:2 mail:7 store:5 web:1]" {
		t.Errorf("--json sections: %v", sections)
	}

	// A wrong SMTP port.
	r = d.doctor(t, []string{"SENDLATER_MAIL_SMTP_PORT=" + portOf(t, "http://"+freeAddr(t))})
	assertOneProblem(t, "wrong SMTP port", r, "✗ SMTP connect: cannot connect to 127.0.0.1:",
		"check mail.smtp.host and mail.smtp.port (587 for starttls, 465 for tls)")

	// A world-readable key file.
	key := filepath.Join(d.dir, "data", "sendlater.key")
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	r = d.doctor(t, nil)
	assertOneProblem(t, "world-readable key", r, "✗ encryption key: data/sendlater.key is mode 0644: other users of this machine can read the secret",
		"chmod 600 data/sendlater.key")
	if err := os.Chmod(key, 0o600); err != nil {
		t.Fatal(err)
	}

	// base_url where nothing answers.
	down := "http://" + freeAddr(t)
	r = d.doctor(t, []string{"SENDLATER_BASE_URL=" + down})
	assertOneProblem(t, "unreachable base_url", r, "✗ base_url: GET "+down+"/healthz: dial tcp",
		"start sendlater serve, or set base_url to the address at which it answers")

	// An unknown key in the config file: reported, the rest still checked.
	if err := os.WriteFile(filepath.Join(d.dir, "config.yaml"), []byte("mail:\n  smtp:\n    hots: smtp.example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = d.doctor(t, nil)
	assertOneProblem(t, "unknown key", r, `✗ unknown key: unknown key "mail.smtp.hots" in config.yaml (did you mean "mail.smtp.host"?)`,
		"rename it as suggested, or delete it")
	if !strings.Contains(r.stdout, "✓ base_url: Sendlater answers") {
		t.Fatalf("the other sections stopped:\n%s", r.stdout)
	}
	os.Remove(filepath.Join(d.dir, "config.yaml"))

	// With the server stopped the store is opened read-only.
	d.srv.stop(t)
	r = d.doctor(t, nil, "store")
	if r.code != 0 || !strings.Contains(r.stdout, "✓ open: opened read-only; nothing created or migrated") {
		t.Fatalf("doctor store without a server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// checkGolden compares the healthy run, its varying parts replaced, with
// docs/cli/doctor.txt (-update rewrites it).
func checkGolden(t *testing.T, d *deployment, out string) {
	t.Helper()
	out = strings.ReplaceAll(out, d.dir, "/srv/sendlater")
	out = strings.ReplaceAll(out, strings.TrimPrefix(d.srv.url, "http://"), "127.0.0.1:8080")
	out = strings.ReplaceAll(out, fmt.Sprintf("127.0.0.1:%d", d.mail.Port()), "127.0.0.1:25")
	for re, with := range map[string]string{
		`\(\d+\.\d [KMG]iB\)`:                       "(32.0 KiB)",
		`[\d.]+ GiB free of [\d.]+ GiB \(\d+%\)`:    "41.2 GiB free of 100.0 GiB (41%)",
		`schema: version \d+, this`:                 "schema: version 14, this",
		`owner uid \d+`:                             "owner uid 998",
		`Sendlater answers at (\S+) in \S+: status`: "Sendlater answers at $1 in 2ms: status",
	} {
		out = regexp.MustCompile("(?m)"+re).ReplaceAllString(out, with)
	}
	golden := filepath.Join("..", "..", "docs", "cli", "doctor.txt")
	const head = "# `sendlater doctor` on a healthy installation (bbolt, serve running, SMTP with a login,\n" +
		"# DKIM published). Kept by TestDoctorChecksADeployment: go test ./cmd/sendlater -run TestDoctorChecksADeployment -update\n" +
		"$ sendlater doctor\n"
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(head+out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != head+out {
		t.Errorf("docs/cli/doctor.txt is not what doctor prints (rerun with -update after checking the difference):\n%s", out)
	}
}

func portOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// A store whose schema is behind the binary's, or ahead of it (written
// by a newer sendlater), is its own ✗ saying what to do; doctor creates
// nothing where there is no store.
func TestDoctorStoreSchemaOnBbolt(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir) // creates the store at the current version
	path := filepath.Join(dir, "data", "sendlater.db")
	current := boltVersion(t, path, 0)
	if r := run(t, dir, nil, "doctor", "store"); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("✓ schema: version %d, this sendlater's", current)) {
		t.Fatalf("a current store: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	boltVersion(t, path, current-1)
	r := run(t, dir, nil, "doctor", "store")
	assertOneProblem(t, "a store behind", r, fmt.Sprintf("✗ schema: version %d, behind this sendlater's %d", current-1, current),
		"start this version's sendlater serve once: it migrates the store as it opens it")
	if boltVersion(t, path, 0) != current-1 {
		t.Fatal("doctor migrated the store")
	}

	boltVersion(t, path, current+1)
	r = run(t, dir, nil, "doctor", "store", "--json")
	var checks []struct {
		Check, Detail, Fix string
		OK                 bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil || r.code != 1 {
		t.Fatalf("a newer store --json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	for _, c := range checks {
		if c.Check == "schema" && (c.OK || !strings.Contains(c.Detail, fmt.Sprintf("version %d, written by a newer sendlater", current+1)) ||
			!strings.Contains(c.Fix, "run the newer sendlater that migrated it")) {
			t.Fatalf("a newer store: %+v", c)
		}
	}

	empty := t.TempDir()
	r = run(t, empty, nil, "doctor", "store")
	assertOneProblem(t, "no store", r, "✗ open: there is no store at "+filepath.Join(empty, "data", "sendlater.db"),
		"run doctor where the server runs, or give it the server's data directory")
	dns := []string{"SENDLATER_MAIL_DNS_SERVER=" + dnstest.MustStart(t).Addr} // not the machine's resolver
	if r := run(t, empty, dns, "doctor"); r.code != 1 || !strings.Contains(r.stdout, "Host: data_dir ./data") {
		t.Fatalf("doctor in an empty directory: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := listDir(t, empty); len(got) != 0 {
		t.Fatalf("doctor created %v", got)
	}
}

// boltVersion returns the schema version of the store file at path, after
// writing set there when set is not 0.
func boltVersion(t *testing.T, path string, set int) int {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	err = db.Update(func(tx *bbolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		if set != 0 {
			if err := meta.Put([]byte("version"), be.BigEndian.AppendUint64(nil, uint64(set))); err != nil {
				return err
			}
		}
		v = int(be.BigEndian.Uint64(meta.Get([]byte("version"))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

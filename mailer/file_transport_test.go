package mailer_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func TestFileTransportWritesEML(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	var logs bytes.Buffer
	o, err := mailer.NewFileTransport(dir, sender, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	e := sampleEmail()
	e.MessageID = "delivery-7@sendlater.example"
	if err := o.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if e.Date.IsZero() {
		t.Error("Date was not filled in")
	}

	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("outbox dir: %v %v, want mode 0700", fi.Mode(), err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("outbox holds %d entries (%v), want 1 file", len(entries), err)
	}
	name := entries[0].Name()
	if !strings.HasSuffix(name, "-delivery-7@sendlater.example.eml") {
		t.Errorf("file name = %q, want <time>-<message id>.eml", name)
	}
	path := filepath.Join(dir, name)
	if fi, _ := entries[0].Info(); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, want 0600", fi.Mode().Perm())
	}
	if !strings.Contains(logs.String(), "level=INFO") || !strings.Contains(logs.String(), path) {
		t.Errorf("log does not name the file at info level: %s", logs.String())
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := smtptest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Header.Get("Message-Id") != "<delivery-7@sendlater.example>" || p.Subject != e.Subject ||
		p.Header.Get("Reply-To") != `"Bob Author" <bob@example.com>` ||
		p.Header.Get("List-Unsubscribe") != "<https://sendlater.example/refuse/abc>" {
		t.Errorf("headers = %v", p.Header)
	}
	if normalize(p.Text) != e.Text || normalize(p.HTML) != e.HTML {
		t.Errorf("bodies = %q / %q", p.Text, p.HTML)
	}
}

// The outbox writes what SMTP sends: the same email renders to the same
// bytes apart from the MIME boundary.
func TestFileTransportMatchesSMTP(t *testing.T) {
	srv := smtptest.Start(t)
	dir := t.TempDir()
	o, err := mailer.NewFileTransport(dir, sender, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	e := sampleEmail()
	if err := o.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if err := MustSMTP(t, srv).Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	got, _ := MustReceiveOne(t, srv)
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("outbox holds %d files", len(files))
	}
	raw, _ := os.ReadFile(files[0])
	if a, b := withoutBoundaries(t, raw), withoutBoundaries(t, got.Data); a != b {
		t.Errorf("outbox and SMTP differ:\n%s\n---\n%s", a, b)
	}
}

func withoutBoundaries(t *testing.T, raw []byte) string {
	t.Helper()
	p, err := smtptest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	_, boundary, _ := strings.Cut(p.Header.Get("Content-Type"), "boundary=")
	if boundary == "" {
		t.Fatalf("no boundary in %q", p.Header.Get("Content-Type"))
	}
	return strings.ReplaceAll(normalize(string(raw)), boundary, "BOUNDARY")
}

func TestFileTransportRejectsEmptyEmail(t *testing.T) {
	o, err := mailer.NewFileTransport(t.TempDir(), sender, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*core.Email{
		"no recipient": {Subject: "x", Text: "x"},
		"no body":      {To: []core.Address{{Address: "a@example.com"}}, Subject: "x"},
		"bad address":  {To: []core.Address{{Address: "not an address"}}, Text: "x"},
	} {
		if err := o.Send(context.Background(), e); err == nil {
			t.Errorf("%s: Send succeeded", name)
		}
	}
}

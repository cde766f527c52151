package mailer_test

import (
	"bytes"
	"context"
	"fmt"
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

// TestFileTransportLogsTheLinks: in outbox mode the log line of each email
// gives its links decoded (issue 28: reading a verification link took a
// quoted-printable decoder, "oobCode=3D..."), through the server's masking
// handler without mangling them, the recipient masked, and the first line
// says why links are logged.
func TestFileTransportLogsTheLinks(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	o, err := mailer.NewFileTransport(dir, sender,
		slog.New(core.NewMaskingHandler(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	verify := "http://127.0.0.1:8080/firebase-action?mode=verifyEmail&oobCode=" + strings.Repeat("Ab3_-", 16) + "&lang=en"
	e := sampleEmail()
	e.Text = "Dear Ann,\n\nConfirm your address (" + verify + ").\n\nNot you? https://sendlater.example/refuse?email=ann@example.com&code=9.\n"
	for range 2 {
		if err := o.Send(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	raw, _ := os.ReadFile(files[0])
	if !strings.Contains(string(raw), "oobCode=3D") {
		t.Fatalf("the .eml is not quoted-printable as assumed:\n%s", raw)
	}

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(lines), logs.String())
	}
	wantLinks := `links="[` + verify + ` https://sendlater.example/refuse?email=a***@example.com&code=9]"`
	for i, l := range lines {
		if !strings.Contains(l, `level=INFO msg="email written to the outbox"`) || !strings.Contains(l, wantLinks) ||
			!strings.Contains(l, "to=a***@example.com") || strings.Contains(l, "=3D") || strings.Contains(l, "ann@") {
			t.Errorf("log line %d:\n%s\nwant %s, the recipient masked", i, l, wantLinks)
		}
		note := strings.Contains(l, "outbox mode: links are logged so you can follow them; configure mail.smtp.host to send")
		if note != (i == 0) {
			t.Errorf("log line %d has the note: %v, want it on the first line only:\n%s", i, note, l)
		}
	}
}

// The outbox keeps an email's return path (the VERP address bounces go
// to) as the Return-Path header an MTA would add on delivery; an email
// without one gets none.
func TestFileTransportKeepsTheReturnPath(t *testing.T) {
	dir := t.TempDir()
	o, err := mailer.NewFileTransport(dir, sender, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	const rp = "bounces+abcdefgh@bounces.sendlater.example"
	for i, path := range []string{rp, ""} {
		e := sampleEmail()
		e.MessageID, e.ReturnPath = fmt.Sprintf("rp-%d@sendlater.example", i), path
		if err := o.Send(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*-"+e.MessageID+".eml"))
		if len(files) != 1 {
			t.Fatalf("outbox holds %d files of %s", len(files), e.MessageID)
		}
		raw, _ := os.ReadFile(files[0])
		p, err := smtptest.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if path != "" {
			want = "<" + path + ">"
		}
		if got := p.Header.Get("Return-Path"); got != want || p.Header.Get("Message-Id") != "<"+e.MessageID+">" {
			t.Fatalf("Return-Path %q, want %q; headers %v", got, want, p.Header)
		}
	}
}

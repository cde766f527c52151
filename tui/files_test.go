package tui_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/tui"
	"github.com/sendlater/sendlater/web"
)

// filesOver is tui.Files over web.AuthorFiles, as cmd/sendlater's tuiFiles
// wires it; dropAfter, when set, loses the reply of that many'th part
// (stored by the server, the answer lost on the way), once.
type filesOver struct {
	files     web.AuthorFiles
	parts     *atomic.Int32
	dropAfter int32
	// down: every part fails before it reaches the server.
	down bool
}

func tuiFile(f *web.FileJSON) tui.File {
	if f == nil {
		return tui.File{}
	}
	return tui.File{ID: f.ID, Name: f.Name, Size: f.Size, Offset: f.Offset, PartSize: f.PartSize, Executable: f.Executable,
		ClientSealed: f.ClientSealed, Complete: f.State == string(core.AttachmentComplete)}
}

func (o filesOver) CreateFile(ctx context.Context, id, name string, size int64) (tui.File, error) {
	f, err := o.files.CreateFile(ctx, id, name, size)
	return tuiFile(f), err
}

func (o filesOver) SendPart(ctx context.Context, id, file string, offset int64, part io.Reader) (tui.File, error) {
	if o.down {
		o.parts.Add(1)
		return tui.File{}, core.Errorf(core.EUnavailable, "the server did not answer: connection refused")
	}
	f, err := o.files.SendPart(ctx, id, file, offset, part)
	if n := o.parts.Add(1); err == nil && n == o.dropAfter {
		return tui.File{}, core.Errorf(core.EUnavailable, "the server did not answer: connection reset")
	}
	return tuiFile(f), err
}

func (o filesOver) ListFiles(ctx context.Context, id string) ([]tui.File, error) {
	fs, err := o.files.ListFiles(ctx, id)
	out := make([]tui.File, len(fs))
	for i, f := range fs {
		out[i] = tuiFile(f)
	}
	return out, err
}

func (o filesOver) DeleteFile(ctx context.Context, id, file string) error {
	return o.files.DeleteFile(ctx, id, file)
}

func (o filesOver) DownloadFile(ctx context.Context, id, file string) (io.ReadCloser, error) {
	return o.files.DownloadFile(ctx, id, file)
}

// withFiles adds the files to a backend's config: the API's client for
// remote (srv not nil), the services for local.
func withFiles(cfg tui.Config, e *testenv.Env, srv *web.Server, token string, dropAfter int32) tui.Config {
	var files web.AuthorFiles = web.LocalFiles{Files: e.Attachments}
	if srv != nil {
		files = web.NewAPIClient(srv.URL(), token, 10*time.Second)
	}
	cfg.Files = filesOver{files: files, parts: new(atomic.Int32), dropAfter: dropAfter}
	return cfg
}

// writeFile writes data to name in a new folder and returns its path.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Attaching in the TUI, on both backends: f opens the message's files, a
// asks for a path and uploads it part after part with a progress line; a
// part whose reply is lost is sent again from the server's offset; the
// bytes read back equal; a script is marked executable; d removes a file
// with its bytes; esc goes back to the list.
func TestAttachingFilesInTheTUI(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			makePro(t, e, ann)
			m, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Deeds", Name: "Bob", Recipient: "bob@example.com",
				Body: "See the files.", Interval: core.Interval1M})
			if err != nil {
				t.Fatal(err)
			}
			cfg, srv := b.open(t, e, ann)
			cfg = withFiles(cfg, e, srv, ann.token, 2)
			d := drive(t, cfg, 80, 24)
			d.waitFor("Deeds")

			big := make([]byte, 2*core.DefaultAttachmentPartSize+4321)
			rand.Read(big)
			copy(big, "%PDF-1.7\n")
			d.press("f")
			d.waitFor("No files yet: a attaches one.")
			d.press("a")
			d.waitFor("Path of the file to attach")
			d.typeText(writeFile(t, "will.pdf", big))
			d.press("enter")
			d.waitFor("Attached will.pdf (2.1 MB).")
			s := d.waitFor("will.pdf     ")
			if !bytesContain(s, "2.1 MB") {
				t.Fatalf("the list of files:\n%s", s)
			}
			d.press("a")
			d.typeText(writeFile(t, "run.sh", []byte("#!/bin/sh\necho the key is in the box\n")))
			d.press("enter")
			d.waitFor("Attached run.sh (37 bytes).")
			d.waitFor("executable")

			list, err := e.Attachments.List(e.As(ann.id), m.ID)
			if err != nil || len(list) != 2 {
				t.Fatalf("stored: %v %v", list, err)
			}
			byName := map[string]*core.Attachment{}
			for _, a := range list {
				byName[a.Name] = a
			}
			if byName["will.pdf"] == nil || byName["run.sh"] == nil || !byName["run.sh"].Executable || byName["will.pdf"].Executable {
				t.Fatalf("stored: %+v", byName)
			}
			_, r, err := e.Attachments.Open(e.As(ann.id), m.ID, byName["will.pdf"].ID)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(r)
			r.Close()
			if !bytes.Equal(got, big) {
				t.Fatalf("read back %d bytes, equal %v", len(got), bytes.Equal(got, big))
			}

			d.press("up")
			if s := d.screen(); !bytesContain(s, "› run.sh") {
				d.press("down")
			}
			d.press("d")
			d.waitFor("Remove “run.sh” and its bytes? y remove · n keep")
			d.press("y")
			d.waitFor("run.sh is removed, with its bytes.")
			if list, _ := e.Attachments.List(e.As(ann.id), m.ID); len(list) != 1 {
				t.Fatalf("%d files after the remove", len(list))
			}
			d.press("esc")
			d.waitFor("Pro plan · 1 message")
		})
	}
}

func bytesContain(s, sub string) bool { return bytes.Contains([]byte(s), []byte(sub)) }

// Starter's attach is refused with the upgrade line; a path that is no
// file says so and uploads nothing.
func TestAttachingOnStarterShowsTheUpgrade(t *testing.T) {
	e, ann := newEnv(t)
	if _, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Deeds", Name: "Bob", Recipient: "bob@example.com",
		Body: "See the files.", Interval: core.Interval1M}); err != nil {
		t.Fatal(err)
	}
	cfg, srv := backends[1].open(t, e, ann)
	d := drive(t, withFiles(cfg, e, srv, ann.token, 0), 80, 24)
	d.waitFor("Deeds")
	d.press("f", "a")
	d.typeText(t.TempDir())
	d.press("enter")
	d.waitFor("This is not a file: give the path of a file, not a folder.")
	d.press("ctrl+u") // the path stays to be mended
	d.typeText(writeFile(t, "will.pdf", []byte("%PDF-1.7")))
	d.press("enter")
	d.waitFor("Files go with messages on the Pro and Business plans: upgrade on the pricing")
	if list, err := e.Attachments.List(e.As(ann.id), theMessage(t, e, ann).ID); err != nil || len(list) != 0 {
		t.Fatalf("Starter's files: %v %v", list, err)
	}
}

// The files page, as text, against testdata/files-80x24.golden: a file and
// a script marked executable, oldest first; and the remove's question.
func TestGoldenFilesPage(t *testing.T) {
	e, ann := newEnv(t)
	makePro(t, e, ann)
	ctx := e.As(ann.id)
	m, err := e.Messages.Create(ctx, core.MessageInput{Title: "Deeds", Name: "Bob", Recipient: "bob@example.com",
		Body: "See the files.", Interval: core.Interval1M})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"Testament von Anna – 2025.pdf", append([]byte("%PDF-1.7\n"), make([]byte, 1_234_567)...)}, {"open-the-safe.sh", []byte("#!/bin/sh\necho 4-8-15-16\n")}} {
		if _, err := web.UploadFile(ctx, web.LocalFiles{Files: e.Attachments}, m.ID, f.name, bytes.NewReader(f.data), int64(len(f.data))); err != nil {
			t.Fatal(err)
		}
		e.Clock.Add(time.Second)
	}
	cfg, srv := backends[0].open(t, e, ann)
	d := drive(t, withFiles(cfg, e, srv, ann.token, 0), 80, 24)
	d.waitFor("Deeds")
	d.press("f")
	d.waitFor("open-the-safe.sh")
	d.golden("files-80x24")
	d.press("d")
	d.waitFor("y remove · n keep")
	d.golden("files-remove-80x24")
}

// A part that never gets through is tried three times, each from the
// offset the server has, then the upload stops and says why; the file
// stays listed as uploading, for esc or d to remove.
func TestAttachingStopsAfterThreeTries(t *testing.T) {
	e, ann := newEnv(t)
	makePro(t, e, ann)
	if _, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Deeds", Name: "Bob", Recipient: "bob@example.com",
		Body: "See the files.", Interval: core.Interval1M}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := backends[0].open(t, e, ann)
	parts := new(atomic.Int32)
	cfg.Files = filesOver{files: web.LocalFiles{Files: e.Attachments}, parts: parts, down: true}
	d := drive(t, cfg, 80, 24)
	d.waitFor("Deeds")
	d.press("f", "a")
	d.typeText(writeFile(t, "will.pdf", []byte("%PDF-1.7 the will")))
	d.press("enter")
	s := d.waitUntil("the upload stopped", func(s string) bool {
		return bytesContain(s, "uploading 0%") && bytesContain(s, "esc back") // not "esc stop the upload"
	})
	if n := parts.Load(); n != 3 || !bytesContain(s, "! the server did not answer: connection refused") || bytesContain(s, "trying again") {
		t.Fatalf("the part was sent %d times, want 3; the screen:\n%s", n, s)
	}
}

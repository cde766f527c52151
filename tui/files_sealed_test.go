package tui_test

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// sealedWithFiles makes ann's sealed message "Deeds" under passphrase.
func sealedWithFiles(t *testing.T, e *testenv.Env, ann *account) *core.Message {
	t.Helper()
	makePro(t, e, ann)
	id := core.NewID()
	env, err := core.Seal(passphrase, id, []byte(letter), core.DefaultSealParams)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.Messages.Create(e.As(ann.id), core.MessageInput{Title: "Deeds", Name: "Bob", Recipient: "bob@example.com",
		ID: id, Sealed: &core.SealedLetter{Envelope: env.String(), Hint: "Lisbon"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// storedOpened is the stored file name of m opened with passphrase.
func storedOpened(t *testing.T, e *testenv.Env, ann *account, m *core.Message, name string) []byte {
	t.Helper()
	list, err := e.Attachments.List(e.As(ann.id), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if a.Name != name {
			continue
		}
		if !a.ClientSealed {
			t.Fatalf("%s is not clientSealed", name)
		}
		_, r, err := e.Attachments.Open(e.As(ann.id), m.ID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out bytes.Buffer
		if _, err := core.OpenFile(&out, r, core.NewSealedFileKeys(passphrase), m.ID); err != nil {
			t.Fatalf("%s does not open with the passphrase: %v", name, err)
		}
		return out.Bytes()
	}
	t.Fatalf("no file %s in %v", name, list)
	return nil
}

// A sealed message's files in the TUI, on both backends: a asks for the
// passphrase (the list's f holds none), refuses one that does not open
// the message, then seals the file with it and uploads it part after
// part; the server holds sealed bytes the passphrase opens; s saves an
// opened copy without asking again, and never over a file.
func TestSealedMessagesFilesInTheTUI(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			m := sealedWithFiles(t, e, ann)
			cfg, srv := b.open(t, e, ann)
			d := drive(t, withFiles(cfg, e, srv, ann.token, 2), 80, 24)
			d.patience = time.Minute
			d.waitFor("Deeds")

			big := make([]byte, 2*core.DefaultAttachmentPartSize+4321)
			rand.Read(big)
			d.press("f")
			d.waitFor("sealed here with its passphrase")
			d.press("a")
			d.typeText(writeFile(t, "will.pdf", big))
			d.press("enter")
			d.waitFor("Passphrase of the sealed message")
			d.typeText("violet harbor quietly mends seven copper lantern")
			d.press("enter")
			s := d.waitFor("This passphrase does not open the message.")
			if strings.Contains(s, "copper lantern") {
				t.Fatalf("the passphrase shows:\n%s", s)
			}
			d.press("ctrl+u")
			d.typeText(passphrase)
			d.press("enter")
			d.waitFor("Attached will.pdf (2.1 MB).")
			d.waitFor("2.1 MB  sealed")
			if got := storedOpened(t, e, ann, m, "will.pdf"); !bytes.Equal(got, big) {
				t.Fatalf("opened %d bytes, equal %v", len(got), bytes.Equal(got, big))
			}

			dir := t.TempDir()
			taken := filepath.Join(dir, "taken.pdf")
			os.WriteFile(taken, []byte("mine"), 0o600)
			d.press("s")
			d.waitFor("Save a copy of “will.pdf” to (opened with the passphrase)")
			d.press("ctrl+u")
			d.typeText(taken)
			d.press("enter")
			d.waitFor("There is a file at this path already: give another.")
			d.press("ctrl+u")
			target := filepath.Join(dir, "will-copy.pdf")
			d.typeText(target)
			d.press("enter")
			d.waitFor("Saved will.pdf to")
			if got, err := os.ReadFile(target); err != nil || !bytes.Equal(got, big) {
				t.Fatalf("the saved copy: %d bytes, %v", len(got), err)
			}
			if got, _ := os.ReadFile(taken); string(got) != "mine" {
				t.Fatal("the file at the taken path changed")
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".sendlater-*")); len(left) != 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

// From the form, once the letter is opened with its passphrase, ctrl+f's
// attach seals with that passphrase without asking for it.
func TestSealedFilesUseTheFormsPassphrase(t *testing.T) {
	e, ann := newEnv(t)
	m := sealedWithFiles(t, e, ann)
	cfg, srv := backends[0].open(t, e, ann)
	d := drive(t, withFiles(cfg, e, srv, ann.token, 0), 100, 40)
	d.patience = time.Minute
	attachFromTheOpenedForm(t, d)
	s := d.waitFor("Attached note.txt (30 bytes).")
	if strings.Contains(s, "Passphrase of the sealed message") {
		t.Fatalf("asked for the passphrase the form holds:\n%s", s)
	}
	if got := storedOpened(t, e, ann, m, "note.txt"); string(got) != "The key is under the blue pot." {
		t.Fatalf("opened %q", got)
	}
}

// A sealed message's files page asking for the passphrase, as text,
// against testdata/files-sealed-passphrase-80x24.golden.
func TestGoldenSealedFilesPassphrase(t *testing.T) {
	e, ann := newEnv(t)
	sealedWithFiles(t, e, ann)
	cfg, srv := backends[0].open(t, e, ann)
	d := drive(t, withFiles(cfg, e, srv, ann.token, 0), 80, 24)
	d.waitFor("Deeds")
	d.press("f")
	d.waitFor("No files yet")
	d.press("a")
	d.typeText(writeFile(t, "will.pdf", []byte("%PDF-1.7")))
	d.press("enter")
	d.waitFor("Passphrase of the sealed message")
	d.golden("files-sealed-passphrase-80x24")
}

// A save that would seal the letter with a new passphrase while the
// message has files sealed with the old one is refused, as in the web
// dialog: the files would no longer open with the letter's passphrase.
// The stored envelope stays the old one; the same passphrase still saves.
func TestANewPassphraseOverSealedFilesIsRefused(t *testing.T) {
	e, ann := newEnv(t)
	m := sealedWithFiles(t, e, ann)
	cfg, srv := backends[0].open(t, e, ann)
	d := drive(t, withFiles(cfg, e, srv, ann.token, 0), 100, 40)
	d.patience = time.Minute
	attachFromTheOpenedForm(t, d)
	d.waitFor("Attached note.txt (30 bytes).")
	d.press("esc")
	d.waitFor("Message · sealed on save")
	d.press("ctrl+l")
	d.waitFor("Seal this message")
	const other = "amber falcon drifts over nine silent quarry bells"
	d.press("ctrl+u")
	d.typeText(other)
	d.press("tab", "ctrl+u")
	d.typeText(other)
	d.press("tab", "enter") // the hint stays
	d.waitFor("The letter will be sealed with your passphrase when you save.")
	d.press("ctrl+s")
	d.waitFor("Remove the files first: they are sealed with the passphrase that opened the letter")
	got, err := e.Messages.Get(e.As(ann.id), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := opens(t, got, passphrase); err != nil || text != letter {
		t.Fatalf("the stored letter changed: %q, %v", text, err)
	}
}

// attachFromTheOpenedForm opens the sealed letter "Deeds" in the form with
// its passphrase, then attaches note.txt from the form's files page.
func attachFromTheOpenedForm(t *testing.T, d *driver) {
	t.Helper()
	d.waitFor("Deeds")
	d.press("e")
	d.waitFor("Message · sealed: ctrl+l opens it")
	d.press("ctrl+l")
	d.waitFor("Open the sealed letter")
	d.typeText(passphrase)
	d.press("enter")
	d.waitFor("The letter is open here; it is sealed again when you save.")
	d.press("ctrl+f")
	d.waitFor("sealed here with its passphrase")
	d.press("a")
	d.typeText(writeFile(t, "note.txt", []byte("The key is under the blue pot.")))
	d.press("enter")
}

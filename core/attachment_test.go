package core_test

import (
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A name keeps what a person reads and loses folders, controls and quotes.
func TestCleanAttachmentName(t *testing.T) {
	for in, want := range map[string]string{
		"Testament.pdf":                   "Testament.pdf",
		"../../etc/passwd":                "passwd",
		`C:\Users\ann\Fotos\Oma.jpg`:      "Oma.jpg",
		"a\x00b\r\nc\u202e.txt":           "ab  c.txt",
		` "quoted" name.doc `:             "quoted name.doc",
		"...":                             "",
		"Brief an Jürgen – 2025.odt":      "Brief an Jürgen – 2025.odt",
		strings.Repeat("é", 150) + ".pdf": strings.Repeat("é", 98) + ".pdf",
	} {
		if got := core.CleanAttachmentName(in); got != want {
			t.Errorf("CleanAttachmentName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The type comes from the bytes; a program is marked by its bytes or its
// name and typed as bytes.
func TestSniffAttachment(t *testing.T) {
	for _, c := range []struct {
		name, head, typ string
		exe             bool
	}{
		{"scan.pdf", "%PDF-1.7\n", "application/pdf", false},
		{"photo.txt", "\x89PNG\r\n\x1a\n", "image/png", false},
		{"notes.txt", "Dear Ann,", "text/plain; charset=utf-8", false},
		{"innocent.pdf", "MZ\x90\x00", "application/octet-stream", true},
		{"tool", "\x7fELF\x02", "application/octet-stream", true},
		{"run.sh", "echo hi", "application/octet-stream", true},
		{"SETUP.EXE", "anything", "application/octet-stream", true},
		{"script", "#!/bin/sh\n", "application/octet-stream", true},
	} {
		typ, exe := core.SniffAttachment(c.name, []byte(c.head))
		if typ != c.typ || exe != c.exe {
			t.Errorf("SniffAttachment(%q, %q) = %q %v, want %q %v", c.name, c.head, typ, exe, c.typ, c.exe)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 999: "999 bytes", 1500: "1.5 KB",
		25_000_000: "25 MB", 250_000_000: "250 MB", 2_000_000_000: "2 GB"} {
		if got := core.FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

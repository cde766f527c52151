package core

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// The golden vectors of sealed files (docs/sealed.md, "Files (v1)"),
// shared with the browser's implementation (web/ui/src/lib/sealed-file.ts's
// test reads the same file): each side must seal to exactly these bytes,
// open them, and refuse the bad ones. go test ./core -run SealedFileVectors
// -update-sealed-files writes the file anew (review the diff: a changed
// file is a changed format).
var updateSealedFiles = flag.Bool("update-sealed-files", false, "write testdata/sealed/file-vectors-v1.json")

const sealedFileVectorsFile = "../testdata/sealed/file-vectors-v1.json"

type sealedFileVectors struct {
	Note      string          `json:"note"`
	ChunkSize int             `json:"chunkSize"`
	Files     []fileVector    `json:"files"`
	Bad       []badFileVector `json:"bad"`
}

type fileVector struct {
	Name       string `json:"name"`
	Passphrase string `json:"passphrase"`
	OpenWith   string `json:"openWith,omitempty"` // another spelling that opens it (NFC)
	MessageID  string `json:"messageId"`
	Salt       string `json:"salt"`   // hex
	Prefix     string `json:"prefix"` // hex
	Memory     uint32 `json:"m"`
	Time       uint32 `json:"t"`
	Threads    uint8  `json:"p"`
	Header     string `json:"header"` // the first line, "\n" included
	Size       int64  `json:"size"`   // of the plaintext
	SealedSize int64  `json:"sealedSize"`
	Plaintext  string `json:"plaintext"` // hex
	Sealed     string `json:"sealed"`    // hex
}

type badFileVector struct {
	Name       string `json:"name"`
	Passphrase string `json:"passphrase"`
	MessageID  string `json:"messageId"`
	Sealed     string `json:"sealed"` // hex
	Error      string `json:"error"`  // "wrong-passphrase" or "invalid"
}

const (
	vectorPassphrase = "orbit lantern velvet cactus thunder meadow"
	vectorMessage    = "msg0000000000000001"
)

// vectorPlaintext is n bytes that are not all alike (a chunk moved changes
// what opens), the same every run.
func vectorPlaintext(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i/251*7 + i/65536)
	}
	return b
}

func sealFileVector(t *testing.T, pass, id string, p SealParams, salt, prefix, plain []byte) []byte {
	t.Helper()
	k, err := DeriveSealedFileKey(pass, salt, p)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(NewFileSealer(bytes.NewReader(plain), k, id, prefix)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// makeSealedFileVectors seals the cases anew.
func makeSealedFileVectors(t *testing.T) sealedFileVectors {
	v := sealedFileVectors{ChunkSize: SealedFileChunk,
		Note: "Golden vectors of docs/sealed.md, \"Files (v1)\". Written by go test ./core -run SealedFileVectors -update-sealed-files; read by core and web/ui tests. Bytes in hex."}
	fast := SealParams{Memory: 64 * 1024, Time: 1, Threads: 1}
	salt := bytes.Repeat([]byte("s"), sealSaltLen) // one key for several files, as a dialog seals them
	for i, c := range []struct {
		name, pass, openWith string
		p                    SealParams
		salt                 []byte
		plain                []byte
	}{
		{"an empty file", vectorPassphrase, "", fast, salt, nil},
		{"5 bytes", vectorPassphrase, "", fast, salt, []byte("hello")},
		{"one full chunk", vectorPassphrase, "", fast, salt, vectorPlaintext(65536)},
		{"a chunk and a byte", vectorPassphrase, "", fast, salt, vectorPlaintext(65537)},
		{"200000 bytes", vectorPassphrase, "", fast, salt, vectorPlaintext(200000)},
		{"the default costs", vectorPassphrase, "", DefaultSealParams, bytes.Repeat([]byte("d"), sealSaltLen), []byte("Default costs: 64 MiB, 3 passes.")},
		{"unicode, NFC", "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e 1987 \u00e9t\u00e9 \u00e0 Z\u00fcrich!",
			"cafe\u0301 cre\u0300me bru\u0302le\u0301e 1987 e\u0301te\u0301 a\u0300 Zu\u0308rich!", fast, salt, []byte("Für dich — 🌻")},
	} {
		prefix := bytes.Repeat([]byte{byte('a' + i)}, sealedFilePrefixLen)
		sealed := sealFileVector(t, c.pass, vectorMessage, c.p, c.salt, prefix, c.plain)
		h := (&SealedFileHeader{Params: c.p, Salt: c.salt, Prefix: prefix}).String()
		v.Files = append(v.Files, fileVector{Name: c.name, Passphrase: c.pass, OpenWith: c.openWith, MessageID: vectorMessage,
			Salt: hex.EncodeToString(c.salt), Prefix: hex.EncodeToString(prefix), Memory: c.p.Memory, Time: c.p.Time, Threads: c.p.Threads,
			Header: h, Size: int64(len(c.plain)), SealedSize: int64(len(sealed)), Plaintext: hex.EncodeToString(c.plain), Sealed: hex.EncodeToString(sealed)})
	}
	small, _ := hex.DecodeString(v.Files[1].Sealed)
	two, _ := hex.DecodeString(v.Files[3].Sealed)
	h := len(v.Files[3].Header)
	c0, c1 := two[h:h+SealedFileChunk+sealedFileTag], two[h+SealedFileChunk+sealedFileTag:]
	head := func(b []byte) []byte { return append([]byte(nil), b[:h]...) }
	cat := func(parts ...[]byte) string { return hex.EncodeToString(bytes.Join(parts, nil)) }
	flipped := append([]byte(nil), small...)
	flipped[len(flipped)-20] ^= 1
	// A writer's chunk 0 not last, then an empty last chunk: authentic,
	// but never written (the last chunk is empty for an empty file only).
	k, _ := DeriveSealedFileKey(vectorPassphrase, salt, fast)
	prefix := bytes.Repeat([]byte("z"), sealedFilePrefixLen)
	full := vectorPlaintext(SealedFileChunk)
	emptyLast := []byte((&SealedFileHeader{Params: fast, Salt: salt, Prefix: prefix}).String())
	emptyLast = k.aead.Seal(emptyLast, sealedFileNonce(prefix, 0), full, sealedFileAD(vectorMessage, 0, false))
	emptyLast = k.aead.Seal(emptyLast, sealedFileNonce(prefix, 1), nil, sealedFileAD(vectorMessage, 1, true))
	smallHeader := v.Files[1].Header
	withHeader := func(header string) string {
		return hex.EncodeToString(append([]byte(header), small[len(smallHeader):]...))
	}
	wp, inv := "wrong-passphrase", "invalid"
	v.Bad = []badFileVector{
		{"a wrong passphrase", vectorPassphrase + "s", vectorMessage, hex.EncodeToString(small), wp},
		{"another message", vectorPassphrase, "msg0000000000000002", hex.EncodeToString(small), wp},
		{"a byte flipped", vectorPassphrase, vectorMessage, hex.EncodeToString(flipped), wp},
		{"the first chunk dropped", vectorPassphrase, vectorMessage, cat(head(two), c1), wp},
		{"cut at a chunk's edge (the last chunk dropped)", vectorPassphrase, vectorMessage, cat(head(two), c0), wp},
		{"the last chunk cut", vectorPassphrase, vectorMessage, cat(head(two), c0, c1[:len(c1)-1]), wp},
		{"two chunks swapped", vectorPassphrase, vectorMessage, cat(head(two), c1, c0), wp},
		{"a byte added", vectorPassphrase, vectorMessage, cat(small, []byte{0}), wp},
		{"an empty last chunk after a full one", vectorPassphrase, vectorMessage, hex.EncodeToString(emptyLast), wp},
		{"the header alone", vectorPassphrase, vectorMessage, hex.EncodeToString([]byte(smallHeader)), wp},
		{"costs spelt otherwise (t=01)", vectorPassphrase, vectorMessage, withHeader(strings.Replace(smallHeader, ",t=1,", ",t=01,", 1)), inv},
		{"costs in another order", vectorPassphrase, vectorMessage, withHeader(strings.Replace(smallHeader, "m=65536,t=1,", "t=1,m=65536,", 1)), inv},
		{"costs below the floor", vectorPassphrase, vectorMessage, withHeader(strings.Replace(smallHeader, "m=65536", "m=32768", 1)), inv},
		{"an unknown version", vectorPassphrase, vectorMessage, withHeader(strings.Replace(smallHeader, "sealedfile:v1$", "sealedfile:v2$", 1)), inv},
		{"a non-canonical base64", vectorPassphrase, vectorMessage, withHeader(strings.Replace(smallHeader, "c3Nzc3Nzc3Nzc3Nzc3Nzcw$", "c3Nzc3Nzc3Nzc3Nzc3Nzcx$", 1)), inv},
		{"a header longer than 200 bytes", vectorPassphrase, vectorMessage, withHeader(strings.Replace(smallHeader, "argon2id$", "argon2id"+strings.Repeat(" ", 200)+"$", 1)), inv},
		{"not a sealed file", vectorPassphrase, vectorMessage, hex.EncodeToString([]byte("%PDF-1.7\nhello")), inv},
	}
	return v
}

// openVector opens sealed and says how it went, as the vectors do.
func openVector(pass, id string, sealed []byte) ([]byte, string) {
	var out bytes.Buffer
	_, err := OpenFile(&out, bytes.NewReader(sealed), NewSealedFileKeys(pass), id)
	switch e, ok := AsError(err); {
	case err == nil:
		return out.Bytes(), "opened"
	case err == ErrWrongPassphrase:
		return nil, "wrong-passphrase"
	case ok && e.Code == EInvalid:
		return nil, "invalid"
	}
	return nil, err.Error()
}

func TestSealedFileVectors(t *testing.T) {
	if *updateSealedFiles {
		b, _ := json.MarshalIndent(makeSealedFileVectors(t), "", "  ")
		if err := os.WriteFile(sealedFileVectorsFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(sealedFileVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v sealedFileVectors
	if err := json.Unmarshal(raw, &v); err != nil || v.ChunkSize != SealedFileChunk {
		t.Fatal(err, v.ChunkSize)
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range v.Files {
		plain, sealed := unhex(c.Plaintext), unhex(c.Sealed)
		got := sealFileVector(t, c.Passphrase, c.MessageID, SealParams{c.Memory, c.Time, c.Threads}, unhex(c.Salt), unhex(c.Prefix), plain)
		if !bytes.Equal(got, sealed) || !bytes.HasPrefix(sealed, []byte(c.Header)) {
			t.Errorf("%s: sealed to other bytes", c.Name)
		}
		if n, ok := OpenedFileSize(len(c.Header), c.SealedSize); SealedFileSize(len(c.Header), c.Size) != c.SealedSize ||
			int64(len(sealed)) != c.SealedSize || int64(len(plain)) != c.Size || !ok || n != c.Size {
			t.Errorf("%s: sizes %d %d %d (%d %v)", c.Name, c.Size, c.SealedSize, len(sealed), n, ok)
		}
		for _, pass := range []string{c.Passphrase, c.OpenWith} {
			if pass == "" {
				continue
			}
			if opened, how := openVector(pass, c.MessageID, sealed); how != "opened" || !bytes.Equal(opened, plain) {
				t.Errorf("%s: opened with %q: %s", c.Name, pass, how)
			}
		}
	}
	for _, c := range v.Bad {
		if _, how := openVector(c.Passphrase, c.MessageID, unhex(c.Sealed)); how != c.Error {
			t.Errorf("%s: %s, want %s", c.Name, how, c.Error)
		}
	}
	if len(v.Files) < 7 || len(v.Bad) < 17 {
		t.Errorf("the vectors lost cases: %d files, %d bad", len(v.Files), len(v.Bad))
	}
}

// Sealing and opening stream a chunk at a time through readers that give
// a byte at a time or half of what is asked, for sizes around the chunks'
// edges; each file has its own prefix; the size functions agree.
func TestSealedFileStreams(t *testing.T) {
	k, err := NewSealedFileKey(vectorPassphrase, SealParams{Memory: 64 * 1024, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys := NewSealedFileKeys(vectorPassphrase)
	seen := map[string]bool{}
	for _, n := range []int{0, 1, 65535, 65536, 65537, 2 * 65536, 2*65536 + 1, 3*65536 - 1} {
		plain := vectorPlaintext(n)
		var sealed bytes.Buffer
		written, err := SealFile(&sealed, iotest.HalfReader(bytes.NewReader(plain)), k, "m1")
		if err != nil || written != int64(sealed.Len()) {
			t.Fatal(n, err)
		}
		line, _, _ := strings.Cut(sealed.String(), "\n")
		h, err := ParseSealedFileHeader(line + "\n")
		if err != nil || seen[string(h.Prefix)] || !bytes.Equal(h.Salt, k.Salt) {
			t.Fatalf("%d: header %q %v", n, line, err)
		}
		seen[string(h.Prefix)] = true
		if got := SealedFileSize(len(line)+1, int64(n)); got != int64(sealed.Len()) {
			t.Errorf("%d: SealedFileSize %d, sealed %d", n, got, sealed.Len())
		}
		if got, ok := OpenedFileSize(len(line)+1, int64(sealed.Len())); !ok || got != int64(n) {
			t.Errorf("%d: OpenedFileSize %d %v", n, got, ok)
		}
		var opened bytes.Buffer
		if _, err := io.Copy(&opened, iotest.OneByteReader(NewFileOpener(iotest.HalfReader(bytes.NewReader(sealed.Bytes())), keys, "m1"))); err != nil ||
			!bytes.Equal(opened.Bytes(), plain) {
			t.Fatalf("%d: opened %d bytes, %v", n, opened.Len(), err)
		}
		if _, err := OpenFile(io.Discard, bytes.NewReader(sealed.Bytes()), keys, "m2"); err != ErrWrongPassphrase {
			t.Fatalf("%d: opened for another message: %v", n, err)
		}
	}
	// No plaintext seals to a body of 1 to 15 bytes past full chunks.
	for _, body := range []int64{0, 15, 65552 + 1, 65552 + 16} {
		if _, ok := OpenedFileSize(0, body); ok {
			t.Errorf("OpenedFileSize(0, %d) is a size", body)
		}
	}
	if _, err := DeriveSealedFileKey(vectorPassphrase, k.Salt, SealParams{Memory: 1024, Time: 1, Threads: 1}); err == nil {
		t.Error("a key below the cost floor")
	}
}

// A reader's error reaches the caller as itself, not as a wrong passphrase.
func TestSealedFileReadError(t *testing.T) {
	k, _ := NewSealedFileKey(vectorPassphrase, SealParams{Memory: 64 * 1024, Time: 1, Threads: 1})
	if _, err := SealFile(io.Discard, iotest.ErrReader(io.ErrClosedPipe), k, "m1"); err != io.ErrClosedPipe {
		t.Fatalf("seal: %v", err)
	}
	var sealed bytes.Buffer
	SealFile(&sealed, bytes.NewReader(vectorPlaintext(200000)), k, "m1")
	cut := io.MultiReader(bytes.NewReader(sealed.Bytes()[:100000]), iotest.ErrReader(io.ErrClosedPipe))
	if _, err := OpenFile(io.Discard, cut, NewSealedFileKeys(vectorPassphrase), "m1"); err != io.ErrClosedPipe {
		t.Fatalf("open: %v", err)
	}
}

// The size the server shows without reading a header is exact at the
// default costs and at most 4 bytes over at the costliest.
func TestShownOpenedFileSize(t *testing.T) {
	for _, p := range []SealParams{DefaultSealParams, {Memory: 256 * 1024, Time: 10, Threads: 4}} {
		h := len((&SealedFileHeader{Params: p, Salt: make([]byte, 16), Prefix: make([]byte, 8)}).String())
		for _, n := range []int64{0, 5, 65535, 65536, 65537, 200000, 3 * 65536} {
			got := ShownOpenedFileSize(SealedFileSize(h, n))
			if got < n || got > n+4 || p == DefaultSealParams && got != n {
				t.Errorf("%+v, %d bytes: shown %d", p, n, got)
			}
		}
	}
}

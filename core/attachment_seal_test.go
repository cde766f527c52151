package core_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"math/big"
	"testing"
	"testing/iotest"

	"github.com/sendlater/sendlater/core"
)

var attachmentKey = bytes.Repeat([]byte{7}, 32)

func sealAll(t *testing.T, key []byte, id string, plain []byte) []byte {
	t.Helper()
	r, err := core.SealAttachment(key, id, iotest.HalfReader(bytes.NewReader(plain)))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := io.ReadAll(iotest.OneByteReader(r))
	if err != nil {
		t.Fatal(err)
	}
	return sealed
}

func openRange(key []byte, id string, sealed []byte, off, n int64) ([]byte, error) {
	r, err := core.OpenAttachmentRange(key, id, bytes.NewReader(sealed), int64(len(sealed)), off, n)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func randInt(n int64) int64 {
	v, _ := rand.Int(rand.Reader, big.NewInt(n))
	return v.Int64()
}

// A file seals chunk by chunk to its computed size, whatever the reads'
// sizes, and every range of it opens to the same bytes.
func TestAttachmentSealsAndOpensEveryRange(t *testing.T) {
	const c = core.AttachmentChunkSize
	for _, size := range []int64{0, 1, c - 1, c, c + 1, 3*c + 17} {
		plain := make([]byte, size)
		rand.Read(plain)
		sealed := sealAll(t, attachmentKey, "file-1", plain)
		if int64(len(sealed)) != core.SealedAttachmentSize(size) || core.AttachmentPlainSize(int64(len(sealed))) != size {
			t.Fatalf("size %d: sealed to %d bytes, want %d", size, len(sealed), core.SealedAttachmentSize(size))
		}
		if bytes.Contains(sealed, plain[:min(len(plain), 64)]) && size >= 64 {
			t.Fatalf("size %d: plaintext in the sealed bytes", size)
		}
		got, err := openRange(attachmentKey, "file-1", sealed, 0, -1)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("size %d: opened %d bytes, %v", size, len(got), err)
		}
		for range 20 {
			off := randInt(size + 1)
			n := randInt(size - off + 2) // sometimes beyond the end
			got, err := openRange(attachmentKey, "file-1", sealed, off, n)
			want := plain[off:min(off+n, size)]
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("size %d, range %d+%d: %d bytes, %v", size, off, n, len(got), err)
			}
		}
	}
}

// Nothing changed, moved, cut or added opens, nor another file's or key's.
func TestAttachmentRefusesTampering(t *testing.T) {
	const c = core.AttachmentChunkSize
	plain := make([]byte, 3*c+100)
	rand.Read(plain)
	sealed := sealAll(t, attachmentKey, "file-1", plain)
	chunk := c + 16
	flipped := append([]byte(nil), sealed...)
	flipped[chunk+5] ^= 1
	swapped := append([]byte(nil), sealed...)
	copy(swapped[:chunk], sealed[chunk:2*chunk])
	copy(swapped[chunk:2*chunk], sealed[:chunk])
	other := sealAll(t, attachmentKey, "file-2", plain)
	for name, tc := range map[string]struct {
		key    []byte
		id     string
		sealed []byte
	}{
		"a changed byte":            {attachmentKey, "file-1", flipped},
		"two chunks swapped":        {attachmentKey, "file-1", swapped},
		"cut at a chunk's edge":     {attachmentKey, "file-1", sealed[:3*chunk]},
		"cut inside a chunk":        {attachmentKey, "file-1", sealed[:len(sealed)-7]},
		"a chunk added":             {attachmentKey, "file-1", append(append([]byte(nil), sealed...), sealed[:chunk]...)},
		"another file's chunks":     {attachmentKey, "file-1", other},
		"opened as another file":    {attachmentKey, "file-2", sealed},
		"another key":               {bytes.Repeat([]byte{8}, 32), "file-1", sealed},
		"a chunk from another file": {attachmentKey, "file-1", append(append([]byte(nil), other[:chunk]...), sealed[chunk:]...)},
	} {
		if _, err := openRange(tc.key, tc.id, tc.sealed, 0, -1); !errors.Is(err, core.ErrAttachmentBroken) {
			t.Errorf("%s: %v, want ErrAttachmentBroken", name, err)
		}
	}
}

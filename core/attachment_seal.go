package core

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"io"
)

// Attachments are kept sealed in chunks (issue 33): a file is cut into
// chunks of AttachmentChunkSize bytes, each sealed with AES-256-GCM under
// the file's own key (DeriveKey of the attachments key and the file's id),
// its nonce the chunk's index, and its associated data the file's id, the
// index and whether it is the last chunk. A chunk moved within a file or to
// another file, a file cut short or lengthened, all fail to open; any range
// of the file is read by opening only the chunks it spans. The sealed form
// is as long as the file plus 16 bytes a chunk (an empty file is one empty
// last chunk).

// AttachmentChunkSize is the plaintext size of every chunk but the last.
const AttachmentChunkSize = 64 << 10

const attachmentTagSize = 16

// sealedChunkSize is a full chunk's sealed size.
const sealedChunkSize = AttachmentChunkSize + attachmentTagSize

// SealedAttachmentSize is the sealed size of a file of n bytes.
func SealedAttachmentSize(n int64) int64 {
	chunks := n/AttachmentChunkSize + 1
	if n > 0 && n%AttachmentChunkSize == 0 {
		chunks--
	}
	return n + chunks*attachmentTagSize
}

// AttachmentPlainSize is the size of the file whose sealed form has n bytes,
// or -1 when no file seals to n bytes.
func AttachmentPlainSize(n int64) int64 {
	full := n / sealedChunkSize
	rest := n % sealedChunkSize
	switch {
	case n < attachmentTagSize:
		return -1
	case rest == 0:
		return full * AttachmentChunkSize
	case rest < attachmentTagSize:
		return -1
	}
	return full*AttachmentChunkSize + rest - attachmentTagSize
}

// ErrAttachmentBroken is a sealed attachment that does not open: a changed,
// moved, cut or lengthened chunk, or the wrong key.
var ErrAttachmentBroken = errors.New("the attachment's sealed bytes do not open")

type attachmentCipher struct {
	aead   cipher.AEAD
	fileID string
}

func newAttachmentCipher(key []byte, fileID string) (*attachmentCipher, error) {
	block, err := aes.NewCipher(DeriveKey(key, "attachment\x00"+fileID))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &attachmentCipher{aead: aead, fileID: fileID}, nil
}

func (c *attachmentCipher) nonceAD(index int64, last bool) (nonce, ad []byte) {
	nonce = make([]byte, 12)
	binary.BigEndian.PutUint64(nonce[4:], uint64(index))
	ad = append([]byte("sendlater attachment v1\x00"+c.fileID+"\x00"), nonce[4:]...)
	if last {
		ad = append(ad, 1)
	} else {
		ad = append(ad, 0)
	}
	return nonce, ad
}

// SealAttachment returns a reader of r's bytes sealed for the file fileID
// under key, made as it is read: one chunk in memory at a time.
func SealAttachment(key []byte, fileID string, r io.Reader) (io.Reader, error) {
	c, err := newAttachmentCipher(key, fileID)
	if err != nil {
		return nil, err
	}
	return &sealingReader{c: c, r: r, plain: make([]byte, AttachmentChunkSize+1)}, nil
}

// sealingReader seals chunk after chunk. It reads one byte ahead of each
// chunk to know whether the chunk is the last.
type sealingReader struct {
	c       *attachmentCipher
	r       io.Reader
	plain   []byte // the next chunk, and one byte of the one after
	have    int    // bytes of plain read
	out     []byte // sealed bytes not yet returned
	sealed  []byte // out's buffer, reused chunk after chunk
	index   int64
	done    bool
	readErr error
}

func (s *sealingReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.done {
			return 0, io.EOF
		}
		if err := s.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// next seals the next chunk into out.
func (s *sealingReader) next() error {
	for s.have < len(s.plain) && s.readErr == nil {
		var n int
		n, s.readErr = s.r.Read(s.plain[s.have:])
		s.have += n
	}
	if s.readErr != nil && s.readErr != io.EOF {
		return s.readErr
	}
	last := s.have <= AttachmentChunkSize
	n := min(s.have, AttachmentChunkSize)
	nonce, ad := s.c.nonceAD(s.index, last)
	// Sealed into the one buffer: out, all read, has no room left, and a
	// new chunk's 64 KiB of garbage each time grew the heap by the part.
	s.sealed = s.c.aead.Seal(s.sealed[:0], nonce, s.plain[:n], ad)
	s.out = s.sealed
	s.index++
	if last {
		s.done = true
		return nil
	}
	s.have = copy(s.plain, s.plain[n:s.have])
	return nil
}

// OpenAttachmentRange returns the bytes [off, off+n) of the file fileID
// sealed under key, reading the sealed form through at (of sealedSize
// bytes) one chunk at a time. n < 0 reads to the end. A read that reaches
// the end opens the last chunk, so a file cut short at a chunk's edge
// fails there; a range before the end reads authentic bytes of a prefix.
func OpenAttachmentRange(key []byte, fileID string, at io.ReaderAt, sealedSize, off, n int64) (io.Reader, error) {
	size := AttachmentPlainSize(sealedSize)
	if size < 0 {
		return nil, ErrAttachmentBroken
	}
	if off < 0 || off > size {
		return nil, Errorf(EInvalid, "The range starts beyond the file's %d bytes.", size)
	}
	if n < 0 || off+n > size {
		n = size - off
	}
	c, err := newAttachmentCipher(key, fileID)
	if err != nil {
		return nil, err
	}
	lastIndex := max(0, (size-1)/AttachmentChunkSize) // an empty file is one empty chunk
	return &openingReader{c: c, at: at, sealedSize: sealedSize, lastIndex: lastIndex,
		index: off / AttachmentChunkSize, skip: off % AttachmentChunkSize, left: n,
		buf: make([]byte, sealedChunkSize)}, nil
}

type openingReader struct {
	c          *attachmentCipher
	at         io.ReaderAt
	sealedSize int64
	lastIndex  int64
	index      int64
	skip       int64 // bytes of the next chunk before the range
	left       int64 // bytes of the range not yet returned
	buf        []byte
	out        []byte
}

func (o *openingReader) Read(p []byte) (int, error) {
	for len(o.out) == 0 {
		if o.left == 0 {
			return 0, io.EOF
		}
		if err := o.open(); err != nil {
			return 0, err
		}
	}
	k := copy(p, o.out)
	o.out = o.out[k:]
	return k, nil
}

// open reads and opens chunk index into out, trimmed to the range.
func (o *openingReader) open() error {
	start := o.index * sealedChunkSize
	end := min(start+sealedChunkSize, o.sealedSize)
	if start >= end {
		return ErrAttachmentBroken
	}
	buf := o.buf[:end-start]
	if _, err := o.at.ReadAt(buf, start); err != nil && err != io.EOF {
		return err
	}
	last := o.index == o.lastIndex
	nonce, ad := o.c.nonceAD(o.index, last)
	plain, err := o.c.aead.Open(buf[:0], nonce, buf, ad)
	if err != nil {
		return ErrAttachmentBroken
	}
	plain = plain[min(o.skip, int64(len(plain))):]
	o.skip = 0
	if int64(len(plain)) > o.left {
		plain = plain[:o.left]
	}
	o.left -= int64(len(plain))
	o.out = plain
	o.index++
	return nil
}

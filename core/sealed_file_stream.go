package core

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"io"
	"math"
)

// The two directions of a sealed file (sealed_file.go), as readers that
// hold one chunk at a time.

// SealFile writes src sealed for the message messageID under k, with a new
// random prefix, to dst, and returns the bytes written.
func SealFile(dst io.Writer, src io.Reader, k *SealedFileKey, messageID string) (int64, error) {
	prefix := make([]byte, sealedFilePrefixLen)
	rand.Read(prefix)
	return io.Copy(dst, NewFileSealer(src, k, messageID, prefix))
}

// NewFileSealer reads src sealed for messageID under k with the nonces'
// prefix (8 bytes, new for every file: SealFile draws it; the vectors give
// theirs): the header, then a chunk at a time.
func NewFileSealer(src io.Reader, k *SealedFileKey, messageID string, prefix []byte) io.Reader {
	h := &SealedFileHeader{Params: k.Params, Salt: k.Salt, Prefix: prefix}
	return &fileSealer{src: src, k: k, id: messageID, prefix: prefix, out: []byte(h.String()),
		next: make([]byte, 0, SealedFileChunk), spare: make([]byte, SealedFileChunk)}
}

type fileSealer struct {
	src         io.Reader
	k           *SealedFileKey
	id          string
	prefix      []byte
	out         []byte // sealed bytes not read yet
	next, spare []byte // the plaintext read ahead: a chunk is the last when nothing follows it
	index       uint32
	primed      bool
	done        bool
	err         error
}

func (s *fileSealer) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.done {
			return 0, io.EOF
		}
		s.err = s.sealNext()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// readChunk reads up to a chunk of src into buf; a short chunk is the end.
func readChunk(src io.Reader, buf []byte) ([]byte, error) {
	n, err := io.ReadFull(src, buf[:cap(buf)])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:n], err
}

// sealNext seals the chunk read ahead once the one after it is read (or
// the end found), so that the last chunk is known as such.
func (s *fileSealer) sealNext() (err error) {
	if len(s.prefix) != sealedFilePrefixLen || s.k.aead == nil {
		return Errorf(EInvalid, "A sealed file needs an 8-byte prefix and a derived key.")
	}
	if !s.primed {
		s.primed = true
		if s.next, err = readChunk(s.src, s.next); err != nil {
			return err
		}
	}
	after := s.spare[:0]
	if len(s.next) == SealedFileChunk {
		if after, err = readChunk(s.src, s.spare); err != nil {
			return err
		}
	}
	if s.index == math.MaxUint32 {
		return Errorf(EInvalid, "This file is too large to seal.")
	}
	last := len(after) == 0
	s.out = s.k.aead.Seal(s.out[:0], sealedFileNonce(s.prefix, s.index), s.next, sealedFileAD(s.id, s.index, last))
	s.index++
	s.next, s.spare, s.done = after, s.next, last
	return nil
}

// OpenFile writes the plaintext of the sealed file src, sealed for the
// message messageID, to dst, with the key keys gives for its header. Bytes
// are written as chunks open: a file that fails past its first chunk has
// left some in dst, so a caller writes to a temporary file and keeps it
// only when OpenFile returns no error. A header this code cannot read is
// EInvalid; any other failure (a wrong passphrase, another message, a
// changed, moved, missing or added byte) is ErrWrongPassphrase, alike.
func OpenFile(dst io.Writer, src io.Reader, keys *SealedFileKeys, messageID string) (int64, error) {
	return io.Copy(dst, NewFileOpener(src, keys, messageID))
}

// NewFileOpener reads the plaintext of the sealed file src (OpenFile).
func NewFileOpener(src io.Reader, keys *SealedFileKeys, messageID string) io.Reader {
	return &fileOpener{src: bufio.NewReaderSize(src, SealedFileChunk+sealedFileTag+1), keys: keys, id: messageID,
		buf: make([]byte, SealedFileChunk+sealedFileTag)}
}

type fileOpener struct {
	src    *bufio.Reader
	keys   *SealedFileKeys
	id     string
	aead   cipher.AEAD
	prefix []byte
	buf    []byte
	out    []byte // opened bytes not read yet
	index  uint32
	done   bool
	err    error
}

func (o *fileOpener) Read(p []byte) (int, error) {
	for len(o.out) == 0 {
		if o.err != nil {
			return 0, o.err
		}
		if o.done {
			return 0, io.EOF
		}
		o.err = o.openNext()
	}
	n := copy(p, o.out)
	o.out = o.out[n:]
	return n, nil
}

// readHeader reads the header line and derives its key.
func (o *fileOpener) readHeader() error {
	head, err := o.src.Peek(sealedFileMaxHeader)
	if err != nil && err != io.EOF {
		return err
	}
	end := bytes.IndexByte(head, '\n')
	if end < 0 {
		return Errorf(EInvalid, "This is not a sealed file this version of Sendlater can open.")
	}
	h, err := ParseSealedFileHeader(string(head[:end+1]))
	if err != nil {
		return err
	}
	k, err := o.keys.For(h)
	if err != nil {
		return err
	}
	o.aead, o.prefix = k.aead, h.Prefix
	_, err = o.src.Discard(end + 1)
	return err
}

// openNext opens the next chunk: the last when nothing follows it.
func (o *fileOpener) openNext() error {
	if o.aead == nil {
		if err := o.readHeader(); err != nil {
			return err
		}
	}
	chunk, err := readChunk(o.src, o.buf)
	if err != nil {
		return err
	}
	last := len(chunk) < len(o.buf)
	if !last {
		if _, err := o.src.Peek(1); errors.Is(err, io.EOF) {
			last = true
		} else if err != nil {
			return err
		}
	}
	// An empty chunk is a whole file only: after full chunks the last is
	// never empty, so a reader never accepts a chunk a writer never makes.
	if len(chunk) < sealedFileTag || len(chunk) == sealedFileTag && o.index > 0 || o.index == math.MaxUint32 {
		return ErrWrongPassphrase
	}
	o.out, err = o.aead.Open(chunk[:0], sealedFileNonce(o.prefix, o.index), chunk, sealedFileAD(o.id, o.index, last))
	if err != nil {
		return ErrWrongPassphrase
	}
	o.index++
	o.done = last
	return nil
}

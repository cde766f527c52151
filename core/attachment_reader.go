package core

import (
	"bufio"
	"context"
	"io"
)

// Open returns a complete file of the author for reading at any offset:
// Read and Seek open only the parts and chunks the bytes read span. Close
// it after.
func (s *AttachmentService) Open(ctx context.Context, messageID, id string) (*Attachment, *AttachmentReader, error) {
	a, err := s.file(ctx, ScopeMessagesRead, messageID, id)
	if err != nil {
		return nil, nil, err
	}
	if a.State != AttachmentComplete {
		return nil, nil, Errorf(EConflict, "This file is still being uploaded.")
	}
	return a, &AttachmentReader{ctx: ctx, s: s, a: a}, nil
}

// AttachmentReader reads a complete file's plaintext (an io.ReadSeeker,
// as http.ServeContent wants for ranges).
type AttachmentReader struct {
	ctx  context.Context
	s    *AttachmentService
	a    *Attachment
	pos  int64
	blob BlobReader
	cur  io.Reader
}

// Read reads from the current position.
func (f *AttachmentReader) Read(p []byte) (int, error) {
	for {
		if f.pos >= f.a.Size {
			return 0, io.EOF
		}
		if f.cur == nil {
			if err := f.openPart(); err != nil {
				return 0, err
			}
		}
		n, err := f.cur.Read(p)
		f.pos += int64(n)
		if err == io.EOF {
			f.closePart()
			err = nil
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

func (f *AttachmentReader) openPart() error {
	i := int(f.pos / f.a.PartSize)
	b, err := f.s.Blobs.OpenBlob(f.ctx, f.a.PartKey(i, f.a.Parts[i]))
	if err != nil {
		return err
	}
	if b.Size() != SealedAttachmentSize(f.a.PartLen(i)) {
		b.Close()
		return ErrAttachmentBroken
	}
	r, err := OpenAttachmentRange(f.s.Key, f.a.partSealID(i), b, b.Size(), f.pos-int64(i)*f.a.PartSize, -1)
	if err != nil {
		b.Close()
		return err
	}
	f.blob, f.cur = b, bufio.NewReaderSize(r, AttachmentChunkSize)
	return nil
}

func (f *AttachmentReader) closePart() {
	if f.blob != nil {
		f.blob.Close()
	}
	f.blob, f.cur = nil, nil
}

// Seek moves the position (io.Seeker).
func (f *AttachmentReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.pos
	case io.SeekEnd:
		offset += f.a.Size
	}
	if offset < 0 {
		return f.pos, Errorf(EInvalid, "The position is before the file's start.")
	}
	if offset != f.pos {
		f.closePart()
		f.pos = offset
	}
	return f.pos, nil
}

// Close releases the part being read.
func (f *AttachmentReader) Close() error {
	f.closePart()
	return nil
}

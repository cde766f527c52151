package core

import (
	"context"
	"fmt"
	"io"
)

// AuthorFiles is the author's files as an operator acting for them uses
// them (the admin socket: `sendlater messages attach|detach|files`): each
// attach, delete and download is in the audit log.
func (o *OperatorAudit) AuthorFiles() Attachments { return operatorFiles{o} }

type operatorFiles struct{ o *OperatorAudit }

var _ Attachments = operatorFiles{}

func (f operatorFiles) Create(ctx context.Context, messageID, name string, size int64) (*Attachment, error) {
	a, err := f.o.Files.Create(ctx, messageID, name, size)
	return done(f.o, ctx, a, err, "messages.attach", func(a *Attachment) string { return a.MessageID },
		fmt.Sprintf("file %s (%s) added as the author", fileIDOf(a), FormatBytes(size)))
}

// A file's name can say what a letter is about ("diagnosis.pdf"): an
// operator's read of the names is recorded like a read of the body.
func (f operatorFiles) Get(ctx context.Context, messageID, id string) (*Attachment, error) {
	a, err := f.o.Files.Get(ctx, messageID, id)
	return reveal(f.o, ctx, a, err, messageID, "read the file "+id)
}

func (f operatorFiles) List(ctx context.Context, messageID string) ([]*Attachment, error) {
	l, err := f.o.Files.List(ctx, messageID)
	return reveal(f.o, ctx, l, err, messageID, fmt.Sprintf("listed the files (%d)", len(l)))
}

func (f operatorFiles) Upload(ctx context.Context, messageID, id string, offset int64, body io.Reader) (*Attachment, error) {
	return f.o.Files.Upload(ctx, messageID, id, offset, body)
}

func (f operatorFiles) Open(ctx context.Context, messageID, id string) (*Attachment, *AttachmentReader, error) {
	a, r, err := f.o.Files.Open(ctx, messageID, id)
	if err != nil {
		return nil, nil, err
	}
	if err := f.o.record(ctx, "messages.reveal", messageID, "downloaded the file "+id); err != nil {
		r.Close()
		return nil, nil, err
	}
	return a, r, nil
}

func (f operatorFiles) Delete(ctx context.Context, messageID, id string) error {
	_, err := done(f.o, ctx, id, f.o.Files.Delete(ctx, messageID, id), "messages.detach",
		func(string) string { return messageID }, "file "+id+" deleted as the author")
	return err
}

func fileIDOf(a *Attachment) string {
	if a == nil {
		return ""
	}
	return a.ID
}

func (f operatorFiles) Usage(ctx context.Context) (*AttachmentUsage, error) {
	return f.o.Files.Usage(ctx)
}

// AccountFiles and OpenAccountFile are the export's, which only the user
// makes.
func (f operatorFiles) AccountFiles(context.Context) ([]*Attachment, error) {
	return nil, errOperator()
}

func (f operatorFiles) OpenAccountFile(context.Context, string) (*Attachment, *AttachmentReader, error) {
	return nil, nil, errOperator()
}

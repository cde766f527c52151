package main

import (
	"context"
	"io"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/tui"
	"github.com/sendlater/sendlater/web"
)

// tuiFiles gives the TUI the author's files of web.AuthorFiles: the API's
// client (over TCP or the admin socket) or the services over the store,
// the same the `messages attach|files|detach` commands use.
type tuiFiles struct{ files web.AuthorFiles }

var _ tui.Files = tuiFiles{}

func tuiFile(f *web.FileJSON) tui.File {
	if f == nil {
		return tui.File{}
	}
	return tui.File{ID: f.ID, Name: f.Name, Size: f.Size, Offset: f.Offset, PartSize: f.PartSize, Executable: f.Executable,
		ClientSealed: f.ClientSealed, Complete: f.State == string(core.AttachmentComplete)}
}

func (t tuiFiles) CreateFile(ctx context.Context, messageID, name string, size int64) (tui.File, error) {
	f, err := t.files.CreateFile(ctx, messageID, name, size)
	return tuiFile(f), err
}

func (t tuiFiles) SendPart(ctx context.Context, messageID, fileID string, offset int64, part io.Reader) (tui.File, error) {
	f, err := t.files.SendPart(ctx, messageID, fileID, offset, part)
	return tuiFile(f), err
}

func (t tuiFiles) ListFiles(ctx context.Context, messageID string) ([]tui.File, error) {
	fs, err := t.files.ListFiles(ctx, messageID)
	out := make([]tui.File, len(fs))
	for i, f := range fs {
		out[i] = tuiFile(f)
	}
	return out, err
}

func (t tuiFiles) DeleteFile(ctx context.Context, messageID, fileID string) error {
	return t.files.DeleteFile(ctx, messageID, fileID)
}

func (t tuiFiles) DownloadFile(ctx context.Context, messageID, fileID string) (io.ReadCloser, error) {
	return t.files.DownloadFile(ctx, messageID, fileID)
}

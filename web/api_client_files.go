package web

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sendlater/sendlater/core"
)

// AuthorFiles is what a command does with an author's files: the socket's
// client acting for the author (APIClient), or the services over a store
// opened directly (LocalFiles).
type AuthorFiles interface {
	CreateFile(ctx context.Context, messageID, name string, size int64) (*FileJSON, error)
	SendPart(ctx context.Context, messageID, fileID string, offset int64, part io.Reader) (*FileJSON, error)
	ListFiles(ctx context.Context, messageID string) ([]*FileJSON, error)
	DeleteFile(ctx context.Context, messageID, fileID string) error
	// DownloadFile reads a file's bytes, as stored: a sealed message's
	// are the author's client's sealed file (core.OpenFile opens them).
	DownloadFile(ctx context.Context, messageID, fileID string) (io.ReadCloser, error)
}

var (
	_ AuthorFiles = (*APIClient)(nil)
	_ AuthorFiles = LocalFiles{}
)

// LocalFiles is AuthorFiles over the services.
type LocalFiles struct{ Files core.Attachments }

func (l LocalFiles) CreateFile(ctx context.Context, messageID, name string, size int64) (*FileJSON, error) {
	a, err := l.Files.Create(ctx, messageID, name, size)
	if err != nil {
		return nil, err
	}
	return newFileJSON(a), nil
}

func (l LocalFiles) SendPart(ctx context.Context, messageID, fileID string, offset int64, part io.Reader) (*FileJSON, error) {
	a, err := l.Files.Upload(ctx, messageID, fileID, offset, part)
	if err != nil {
		return nil, err
	}
	return newFileJSON(a), nil
}

func (l LocalFiles) ListFiles(ctx context.Context, messageID string) ([]*FileJSON, error) {
	as, err := l.Files.List(ctx, messageID)
	if err != nil {
		return nil, err
	}
	return each(as, newFileJSON), nil
}

func (l LocalFiles) DeleteFile(ctx context.Context, messageID, fileID string) error {
	return l.Files.Delete(ctx, messageID, fileID)
}

func (l LocalFiles) DownloadFile(ctx context.Context, messageID, fileID string) (io.ReadCloser, error) {
	_, r, err := l.Files.Open(ctx, messageID, fileID)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func filesPath(messageID string) string {
	return "/api/messages/" + url.PathEscape(messageID) + "/files"
}

// CreateFile makes an upload (POST /api/messages/{id}/files).
func (c *APIClient) CreateFile(ctx context.Context, messageID, name string, size int64) (*FileJSON, error) {
	var out FileJSON
	if err := c.t.do(ctx, "POST", filesPath(messageID), map[string]any{"name": name, "size": size}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SendPart sends the part at offset (PATCH) and returns the file as it
// stands after.
func (c *APIClient) SendPart(ctx context.Context, messageID, fileID string, offset int64, part io.Reader) (*FileJSON, error) {
	path := filesPath(messageID) + "/" + url.PathEscape(fileID)
	req, err := http.NewRequestWithContext(ctx, "PATCH", c.t.base+path, part)
	if err != nil {
		return nil, err
	}
	for k, v := range c.t.head {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", uploadContentType)
	req.Header.Set(headerUploadOffset, strconv.FormatInt(offset, 10))
	resp, err := c.t.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, core.Errorf(core.EUnavailable, "%s did not answer: %v", c.t.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return nil, decodeEnvelope(resp, nil)
	}
	var out FileJSON
	if err := c.t.do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListFiles lists a message's files.
func (c *APIClient) ListFiles(ctx context.Context, messageID string) ([]*FileJSON, error) {
	var out []*FileJSON
	if err := c.t.do(ctx, "GET", filesPath(messageID), nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteFile deletes a file and its bytes.
func (c *APIClient) DeleteFile(ctx context.Context, messageID, fileID string) error {
	return c.t.do(ctx, "DELETE", filesPath(messageID)+"/"+url.PathEscape(fileID), nil, nil)
}

// DownloadFile reads a file's bytes (GET .../files/{file}/content); the
// caller closes the body.
func (c *APIClient) DownloadFile(ctx context.Context, messageID, fileID string) (io.ReadCloser, error) {
	resp, err := c.t.send(ctx, "GET", filesPath(messageID)+"/"+url.PathEscape(fileID)+"/content", nil, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, decodeEnvelope(resp, nil)
	}
	return resp.Body, nil
}

// UploadFile sends the size bytes of r as the file name of the message,
// part after part; a part that fails is sent again from the offset the
// server has, up to three times.
func UploadFile(ctx context.Context, files AuthorFiles, messageID, name string, r io.ReaderAt, size int64) (*FileJSON, error) {
	f, err := files.CreateFile(ctx, messageID, name, size)
	if err != nil {
		return nil, err
	}
	tries := 0
	for f.State != string(core.AttachmentComplete) {
		n := min(f.PartSize, size-f.Offset)
		next, err := files.SendPart(ctx, messageID, f.ID, f.Offset, io.NewSectionReader(r, f.Offset, n))
		if err != nil {
			if tries++; tries >= 3 || core.ErrorCode(err) == core.EAttachmentNotFound {
				return f, err
			}
			list, lerr := files.ListFiles(ctx, messageID)
			if lerr != nil {
				return f, err
			}
			for _, x := range list {
				if x.ID == f.ID {
					f = x
				}
			}
			continue
		}
		f, tries = next, 0
	}
	return f, nil
}

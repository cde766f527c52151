package mailer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// FileTransport is the zero-config transport: it writes each email as an RFC 5322
// .eml file into a directory instead of sending it. It is safe for concurrent
// use.
type FileTransport struct {
	dir    string
	from   core.Address
	logger *slog.Logger
}

var _ core.Mailer = (*FileTransport)(nil)

// NewFileTransport creates dir (mode 0700) when missing. from is the sender of
// emails that name none; a nil logger means slog.Default().
func NewFileTransport(dir string, from core.Address, logger *slog.Logger) (*FileTransport, error) {
	if dir == "" {
		return nil, errors.New("mailer: outbox directory is required")
	}
	if from.Address == "" {
		return nil, errors.New("mailer: outbox sender address is required")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mailer: create outbox: %w", err)
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &FileTransport{dir: dir, from: from, logger: logger}, nil
}

// Send writes e to <dir>/<UTC time>-<message id>.eml with mode 0600. The file
// appears complete or not at all (temporary file, then rename). It fills
// e.Date and e.MessageID when they are empty. Write failures are temporary.
func (o *FileTransport) Send(ctx context.Context, e *core.Email) error {
	if err := ctx.Err(); err != nil {
		return &core.TemporaryError{Err: err}
	}
	msg, err := buildMsg(e, o.from)
	if err != nil {
		return err
	}
	name := time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + fileSafe(e.MessageID) + ".eml"
	path := filepath.Join(o.dir, name)
	if err := writeAtomic(path, func(f *os.File) error {
		_, err := msg.WriteTo(f)
		return err
	}); err != nil {
		return &core.TemporaryError{Err: fmt.Errorf("mailer: write outbox: %w", err)}
	}
	o.logger.InfoContext(ctx, "email written to outbox", "path", path, "message_id", e.MessageID)
	return nil
}

// writeAtomic writes path through a temporary file in the same directory
// (created 0600 by os.CreateTemp), synced and renamed into place.
func writeAtomic(path string, write func(*os.File) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.eml")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// fileSafe keeps the characters of a Message-ID that are safe in a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '@', r == '_':
			return r
		}
		return '_'
	}, s)
}

package mailer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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
	noted  sync.Once // the first line says why links are logged
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

// Send writes e to <dir>/<UTC time>-<message id>.eml with mode 0600, its
// return path, if any, in a Return-Path header first (as an MTA delivering
// it would write). The file appears complete or not at all (temporary
// file, then rename). It fills
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
		if e.ReturnPath != "" {
			// What the final MTA would add (RFC 5321 4.4): the envelope
			// sender, the email's VERP return path when there is a bounce
			// domain, so that an operator (or a test) sees where its
			// bounces would go.
			if _, err := fmt.Fprintf(f, "Return-Path: <%s>\r\n", oneLine(e.ReturnPath)); err != nil {
				return err
			}
		}
		_, err := msg.WriteTo(f)
		return err
	}); err != nil {
		return &core.TemporaryError{Err: fmt.Errorf("mailer: write outbox: %w", err)}
	}
	to := make([]string, len(e.To))
	for i, a := range e.To {
		to[i] = core.MaskEmail(a.Address)
	}
	attrs := []any{"file", path, "to", strings.Join(to, ","), "subject", e.Subject, "message_id", e.MessageID,
		"links", Links(e.Text)}
	o.noted.Do(func() {
		attrs = append(attrs, "note", "outbox mode: links are logged so you can follow them; configure mail.smtp.host to send")
	})
	o.logger.InfoContext(ctx, "email written to the outbox", attrs...)
	return nil
}

// linkPattern finds the links of an email's text part.
var linkPattern = regexp.MustCompile(`https?://[^\s<>"'()\[\]]+`)

// LinkList is the links of an email as the outbox's log line shows them. It
// is logged as a list (slog.KindAny, no String method) so that the masking
// log handler passes it on unchanged: MaskEmails would take a query such as
// "?mode=x&oobCode=y" for the local part of an address beside an '@' and
// mangle the whole link. An address in a link is masked here instead.
type LinkList []string

// Links returns the links of text (an email's text part, before any
// transfer encoding: no quoted-printable "=3D" to undo), each address in
// them masked. In outbox mode they are logged so that a developer can
// follow a verification or reset link without decoding the .eml file;
// those links carry one-time codes, which is acceptable only because the
// outbox is the local, zero-config development mode: with SMTP nothing is
// logged of an email's content.
func Links(text string) LinkList {
	links := LinkList{}
	for _, l := range linkPattern.FindAllString(text, -1) {
		links = append(links, maskLinkAddresses(strings.TrimRight(l, ".,;:!?")))
	}
	return links
}

// maskLinkAddresses masks each part of link between / ? & = # that holds an
// address (raw or %40-encoded), as the log handler masks addresses.
func maskLinkAddresses(link string) string {
	if !strings.Contains(link, "@") && !strings.Contains(link, "%40") {
		return link
	}
	var b strings.Builder
	start := 0
	flush := func(end int) {
		part := link[start:end]
		if plain := strings.ReplaceAll(part, "%40", "@"); strings.Contains(plain, "@") {
			part = core.MaskEmail(plain)
		}
		b.WriteString(part)
	}
	for i := 0; i < len(link); i++ {
		if strings.IndexByte("/?&=#", link[i]) >= 0 {
			flush(i)
			b.WriteByte(link[i])
			start = i + 1
		}
	}
	flush(len(link))
	return b.String()
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

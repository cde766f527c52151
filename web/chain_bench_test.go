package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/logbuf"
	"github.com/sendlater/sendlater/internal/textlog"
)

// chainWriter is a reply's writer as net/http's is to the handler chain: a
// new header map per reply, the body passed on, nothing cloned (httptest's
// recorder clones the header at WriteHeader, which net/http does not).
type chainWriter struct {
	h      http.Header
	status int
	n      int
}

func (c *chainWriter) Header() http.Header { return c.h }
func (c *chainWriter) WriteHeader(s int) {
	if c.status == 0 {
		c.status = s
	}
}
func (c *chainWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.n += len(p)
	return len(p), nil
}

// productionLogger is the serve command's logger (cmd/sendlater): email
// masking over logbuf's batches over textlog, into io.Discard.
func productionLogger() *slog.Logger {
	lines := logbuf.New(io.Discard, 50*time.Millisecond, 32<<10)
	return slog.New(core.NewMaskingHandler(logbuf.Handler(textlog.New(lines, slog.LevelInfo), lines)))
}

// BenchmarkChain is one authenticated read through the whole handler
// chain as the serve command has it (its logger, a writer like
// net/http's), without the network: what the real server spends per
// request beyond a bare one that writes the same bytes (issue 35).
func BenchmarkChain(b *testing.B) {
	e := newHandlerEnv(b)
	tok := e.proAuthor(b, "chain@example.com")
	for range 20 {
		if _, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{
			Title: "For my sister", Name: "Ann", Recipient: "ann@example.com",
			Body: strings.Repeat("A letter for the future. ", 20), Interval: core.Interval12M,
		}); err != nil {
			b.Fatal(err)
		}
	}
	h := e.handler(productionLogger())
	page, err := e.Messages.List(e.As(tok.User.ID), core.Page{Limit: 1})
	if err != nil || len(page.Messages) == 0 {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, path, enc string }{
		{"me", "/api/me", ""},
		{"me-gzip", "/api/me", "gzip"},
		{"message", "/api/messages/" + page.Messages[0].ID, ""},
		{"message-gzip", "/api/messages/" + page.Messages[0].ID, "gzip"},
		{"list", "/api/messages", ""},
		{"list-gzip", "/api/messages", "gzip"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				req, _ := http.NewRequest("GET", "http://localhost"+c.path, nil)
				req.RemoteAddr = "127.0.0.1:5555"
				req.Header.Set("Authorization", "Bearer "+tok.IDToken)
				if c.enc != "" {
					req.Header.Set("Accept-Encoding", c.enc)
				}
				for pb.Next() {
					w := &chainWriter{h: make(http.Header)}
					h.ServeHTTP(w, req)
					if w.status != http.StatusOK {
						b.Fatalf("%d", w.status)
					}
				}
			})
		})
	}
}

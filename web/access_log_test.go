package web_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/logbuf"
	"github.com/sendlater/sendlater/internal/textlog"
)

// TestAccessLineSameEitherWay serves the same requests through the serve
// command's logger (masking over logbuf over textlog: the access line's
// fast path) and through masking over slog's own text handler (the whole
// way), and checks that the access lines are the same bytes but for each
// request's time, id and duration: paths that need quoting, an email
// address in the path (masked either way: that line takes the whole way),
// a sealed link's path (cut), statuses other than 200, a reply gzipped.
func TestAccessLineSameEitherWay(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.proAuthor(t, "lines@example.com")
	if _, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{
		Title: "For my sister", Name: "Ann", Recipient: "ann@example.com",
		Body: strings.Repeat("A letter for the future. ", 80), Interval: core.Interval12M,
	}); err != nil {
		t.Fatal(err)
	}
	var fastOut, slowOut bytes.Buffer
	lines := logbuf.New(&fastOut, time.Hour, 1<<20)
	fast := e.handler(slog.New(core.NewMaskingHandler(logbuf.Handler(textlog.New(lines, slog.LevelInfo), lines))))
	slow := e.handler(slog.New(core.NewMaskingHandler(slog.NewTextHandler(&slowOut, nil))))

	reqs := []struct{ path, token, enc string }{
		{"/api/me", tok.IDToken, ""},
		{"/api/me", "", ""},
		{"/api/messages", tok.IDToken, "gzip"},
		{"/api/messages", tok.IDToken, ""},
		{"/api/no/such", "", ""},
		{"/api/users/ann@example.com/x", tok.IDToken, ""},
		{"/api/a%20b%22c=d", "", ""},
		{"/api/open/secret-token", "", ""},
		{"/caf%C3%A9", "", ""},
	}
	for _, h := range []http.Handler{fast, slow} {
		for _, q := range reqs {
			req := httptest.NewRequest("GET", q.path, nil)
			if q.token != "" {
				req.Header.Set("Authorization", "Bearer "+q.token)
			}
			if q.enc != "" {
				req.Header.Set("Accept-Encoding", q.enc)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	if err := lines.Flush(); err != nil {
		t.Fatal(err)
	}
	varying := regexp.MustCompile(`^time=\S+ |request_id=[0-9a-f]{16} |duration_ms=[0-9.e+-]+ `)
	access := func(out string) []string {
		var got []string
		for line := range strings.Lines(out) {
			if strings.Contains(line, " msg=request ") {
				got = append(got, varying.ReplaceAllString(line, ""))
			}
		}
		return got
	}
	f, s := access(fastOut.String()), access(slowOut.String())
	if len(f) != len(reqs) || len(s) != len(reqs) {
		t.Fatalf("%d and %d access lines, want %d:\n%s\n%s", len(f), len(s), len(reqs), fastOut.String(), slowOut.String())
	}
	for i := range f {
		if f[i] != s[i] {
			t.Errorf("request %d: the fast way wrote\n%q\nthe whole way\n%q", i, f[i], s[i])
		}
	}
	if strings.Contains(fastOut.String(), "ann@example.com") {
		t.Errorf("an email address reached the log:\n%s", fastOut.String())
	}
	if !regexp.MustCompile(`^time=\S+ level=INFO msg=request request_id=[0-9a-f]{16} method=GET path=/api/me status=200 bytes=\d+ duration_ms=[0-9.e+-]+ remote=192\.0\.2\.1\n`).MatchString(fastOut.String()) {
		t.Errorf("the first line is not an access line as slog writes it:\n%s", fastOut.String())
	}
}

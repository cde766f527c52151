package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/logbuf"
	"github.com/sendlater/sendlater/internal/textlog"
)

// accessLog writes the access log's line of every request (withRequest):
// its id, method, path (loggedPath), status, bytes, duration and client.
//
// When the logger is the serve command's (core's email masking over
// logbuf's batches over textlog, cmd/sendlater), a line is written straight
// to textlog in one pass (textlog.Line), without a slog.Record and the
// three handlers' passes over it: the line was about a twentieth of a
// quick read's CPU, most of it that machinery (issue 35). The bytes are
// the same (TestAccessLineSameEitherWay). A line with an '@' in any of its
// strings, which the masking might change, goes the whole way, as does
// every line of any other logger (the admin socket's carries an attribute
// of its own: its handler is slog's, and the line goes through it).
type accessLog struct {
	base *slog.Logger
	fast *textlog.Handler // nil: every line through base
}

// The access line's keys, formatted once.
var (
	keyRequestID, keyMethod, keyPath = textlog.NewKey("request_id"), textlog.NewKey("method"), textlog.NewKey("path")
	keyStatus, keyBytes, keyDuration = textlog.NewKey("status"), textlog.NewKey("bytes"), textlog.NewKey("duration_ms")
	keyRemote                        = textlog.NewKey("remote")
)

func newAccessLog(base *slog.Logger) *accessLog {
	a := &accessLog{base: base}
	h := base.Handler()
	if m, ok := h.(*core.MaskingHandler); ok {
		h = m.Handler
	}
	h, _ = logbuf.Unwrap(h) // below warning level its handler only passes lines on
	a.fast, _ = h.(*textlog.Handler)
	return a
}

// write writes rq's line, ended at now.
func (a *accessLog) write(rq *request, r *http.Request, start, now time.Time) {
	sent := &rq.reply.sent
	path := loggedPath(r.URL.Path)
	us := now.Sub(start).Microseconds()
	if a.fast != nil && !anyAt(r.Method, path, rq.client, rq.id) {
		if !a.fast.Enabled(rq, slog.LevelInfo) {
			return
		}
		l := a.fast.Line(now, slog.LevelInfo, "request")
		l.String(keyRequestID, rq.id)
		l.String(keyMethod, r.Method)
		l.String(keyPath, path)
		l.Int(keyStatus, sent.status)
		l.Int(keyBytes, sent.bytes)
		l.Millis(keyDuration, us) // slog.Float64 of us/1000, the same bytes
		l.String(keyRemote, rq.client)
		l.End()
		return
	}
	// The record is made here, not by Logger.LogAttrs, which walks the
	// stack for a caller no handler of ours writes: that walk was a fifth
	// of the line's cost.
	var ctx context.Context = rq
	h := a.base.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	line := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	line.AddAttrs(slog.String("request_id", rq.id), slog.String("method", r.Method), slog.String("path", path),
		slog.Int("status", sent.status), slog.Int("bytes", sent.bytes),
		slog.Float64("duration_ms", float64(us)/1000), slog.String("remote", rq.client))
	h.Handle(ctx, line)
}

// anyAt reports whether any of ss holds an '@': what core's masking looks
// for (core.MaskEmails).
func anyAt(ss ...string) bool {
	for _, s := range ss {
		if strings.IndexByte(s, '@') >= 0 {
			return true
		}
	}
	return false
}

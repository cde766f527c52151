package web

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/logbuf"
	"github.com/sendlater/sendlater/internal/textlog"
)

// TestAccessLogTakesTheFastPathOnlyWhereItMay: the serve command's logger
// (masking over logbuf over textlog, cmd/sendlater) gets the one-pass
// access line; a logger with attributes of its own (the admin socket's),
// slog's own handlers and an unknown wrapper go the whole way.
func TestAccessLogTakesTheFastPathOnlyWhereItMay(t *testing.T) {
	lines := logbuf.New(io.Discard, time.Hour, 1<<10)
	defer lines.Close()
	serve := slog.New(core.NewMaskingHandler(logbuf.Handler(textlog.New(lines, slog.LevelInfo), lines)))
	if newAccessLog(serve).fast == nil {
		t.Error("the serve command's logger: no fast path")
	}
	if newAccessLog(slog.New(textlog.New(io.Discard, slog.LevelInfo))).fast == nil {
		t.Error("textlog alone: no fast path")
	}
	for name, l := range map[string]*slog.Logger{
		"the admin socket's": serve.With("listener", "admin"),
		"slog's text":        slog.New(core.NewMaskingHandler(slog.NewTextHandler(io.Discard, nil))),
		"slog's JSON":        slog.New(core.NewMaskingHandler(slog.NewJSONHandler(io.Discard, nil))),
		"an unknown wrapper": slog.New(wrapped{textlog.New(io.Discard, slog.LevelInfo)}),
	} {
		if newAccessLog(l).fast != nil {
			t.Errorf("%s logger takes the fast path", name)
		}
	}
}

type wrapped struct{ slog.Handler }

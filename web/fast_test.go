package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request its client cancelled is logged as a cancellation, with no
// error line and no 500 anywhere in the log.
func TestCancelledRequestIsNoServerError(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.proAuthor(t, "gone@example.com")
	var logs lockedBuffer
	h := e.handler(slog.New(slog.NewTextHandler(&logs, nil)))
	for _, path := range []string{"/api/messages", "/api/me"} {
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+tok.IDToken)
		cancel() // the client went away before the server read the store
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusInternalServerError {
			t.Errorf("GET %s cancelled: %d %s", path, rec.Code, rec.Body)
		}
	}
	out := logs.String()
	if strings.Contains(out, "level=ERROR") || strings.Contains(out, "status=500") || strings.Contains(out, "internal/error") {
		t.Fatalf("a cancelled request logged as a server error:\n%s", out)
	}
	if !strings.Contains(out, "request cancelled by the client") {
		t.Fatalf("no cancellation in the log:\n%s", out)
	}
}

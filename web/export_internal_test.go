package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// A user's second zip export while one is being written is refused with
// 429 auth/too-many-requests, in words; another user's goes on, and once
// the first ends the user may export again.
func TestOneZipExportAtATime(t *testing.T) {
	e := testenv.New(t, testenv.Config{Start: testenv.DefaultStart})
	ann := e.MustUser(t, "ann@example.com", "Europe/London", core.PlanPro)
	bob := e.MustUser(t, "bob@example.com", "Europe/London", core.PlanPro)
	s := &Server{Identities: e.Auth, Attachments: e.Attachments}
	export := func(uid string) *httptest.ResponseRecorder {
		r := withIdentity(httptest.NewRequest("GET", "/api/me/export?format=zip", nil), &core.Identity{UserID: uid})
		w := httptest.NewRecorder()
		s.handleExport(w, r)
		return w
	}
	s.exporting.Store(ann.ID, struct{}{}) // ann's first export is being written
	w := export(ann.ID)
	if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), `"auth/too-many-requests"`) ||
		!strings.Contains(w.Body.String(), "An export of your account is being made") {
		t.Fatalf("a second export at once: %d %s", w.Code, w.Body)
	}
	if w := export(bob.ID); w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/zip" {
		t.Fatalf("another user's export: %d %v", w.Code, w.Header())
	}
	s.exporting.Delete(ann.ID)
	if w := export(ann.ID); w.Code != http.StatusOK {
		t.Fatalf("ann's export once the first ended: %d %s", w.Code, w.Body)
	}
	if _, busy := s.exporting.Load(ann.ID); busy {
		t.Fatal("an export that ended still holds the user's place")
	}
}

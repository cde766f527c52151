package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/webhook"
)

func TestHeartbeat(t *testing.T) {
	status := http.StatusOK
	beats := 0
	monitor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			beats++
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(monitor.Close)
	hb := webhook.NewHeartbeat(monitor.URL+"/ping/abc", time.Second)
	if err := hb.Beat(context.Background()); err != nil || beats != 1 {
		t.Fatalf("beat: %v, %d requests", err, beats)
	}
	status = http.StatusNotFound
	if err := hb.Beat(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("a 404 monitor: %v", err)
	}
}

package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/webhook"
)

func TestWebhookClientRefusesPrivateDestinations(t *testing.T) {
	var got http.Header
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	headers := map[string]string{core.WebhookSignatureHeader: "sha256=00"}
	ctx := context.Background()

	strict := webhook.NewClient(false, 2*time.Second)
	port := hook.URL[strings.LastIndex(hook.URL, ":"):]
	for _, target := range []string{hook.URL, "http://localhost" + port, "http://[::1]" + port, "http://169.254.169.254/latest/meta-data"} {
		err := strict.Post(ctx, target, []byte(`{}`), headers)
		var tmp *core.TemporaryError
		if err == nil || !strings.Contains(err.Error(), "refused") || errors.As(err, &tmp) {
			t.Fatalf("%s: %v, want a permanent refusal", target, err)
		}
	}
	if got != nil {
		t.Fatal("a refused destination was reached")
	}

	open := webhook.NewClient(true, 2*time.Second)
	if err := open.Post(ctx, hook.URL, []byte(`{}`), headers); err != nil {
		t.Fatal(err)
	}
	if got.Get(core.WebhookSignatureHeader) != "sha256=00" {
		t.Fatalf("headers %v", got)
	}
	if err := open.Post(ctx, "ftp://example.com/x", nil, nil); err == nil {
		t.Fatal("a non-http URL was accepted")
	}
}

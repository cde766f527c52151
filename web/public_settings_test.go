package web_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sendlater/sendlater/web"
)

func TestThirdPartiesAreOffByDefault(t *testing.T) {
	rec := serve(spaServer(t), "/")
	csp := rec.Header().Get("Content-Security-Policy")
	if strings.Contains(rec.Body.String(), "public-settings") || strings.Contains(csp, "https://") || !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval';") {
		t.Fatalf("with nothing configured: %s\n%s", csp, rec.Body)
	}
}

func TestConfiguredThirdPartiesReachTheSPAAndTheCSP(t *testing.T) {
	ui := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><html><head></head><body><div id=root></div></body></html>`)}}
	h := (&web.Server{UI: ui, Public: web.PublicSettings{
		Analytics: &web.Analytics{ScriptURL: "https://stats.example.org/script.js", WebsiteID: "site-1"},
		Chat: &web.Chat{ScriptURL: "https://client.crisp.chat/l.js", WebsiteID: "chat-1",
			Hosts: []string{"wss://client.relay.crisp.chat"}},
	}}).Handler()

	for _, path := range []string{"/", "/api/plans", "/no/such/page"} {
		csp := serve(h, path).Header().Get("Content-Security-Policy")
		for _, want := range []string{
			"script-src 'self' 'wasm-unsafe-eval' https://stats.example.org https://client.crisp.chat wss://client.relay.crisp.chat;",
			"connect-src 'self' https://stats.example.org https://client.crisp.chat wss://client.relay.crisp.chat;",
			"frame-src 'self' https://stats.example.org",
			"frame-ancestors 'none'",
			"object-src 'none'",
		} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: the CSP lacks %q: %s", path, want, csp)
			}
		}
	}

	body := serve(h, "/pricing").Body.String()
	start := strings.Index(body, `<script type="application/json" id="public-settings">`)
	if start < 0 || start > strings.Index(body, "</head>") {
		t.Fatalf("no settings in the head:\n%s", body)
	}
	raw := body[start+len(`<script type="application/json" id="public-settings">`):]
	raw = raw[:strings.Index(raw, "</script>")]
	var got map[string]map[string]string
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	if got["analytics"]["scriptUrl"] != "https://stats.example.org/script.js" || got["analytics"]["websiteId"] != "site-1" ||
		got["chat"]["websiteId"] != "chat-1" || len(got) != 2 {
		t.Fatalf("settings %v", got)
	}
}

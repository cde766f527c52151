package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sendlater/sendlater/web"
)

// spaServer serves a small SPA build with the real page table.
func spaServer(t *testing.T) http.Handler {
	t.Helper()
	ui := fstest.MapFS{
		"index.html":            {Data: []byte(`<!doctype html><html><head><meta charset="utf-8"></head><body><div id=root></div></body></html>`)},
		"assets/app-abc1.js":    {Data: []byte("console.log('identity')")},
		"assets/app-abc1.js.br": {Data: []byte("brotli bytes")},
		"assets/app-abc1.js.gz": {Data: []byte("gzip bytes")},
		"og-image.png":          {Data: []byte("\x89PNG")},
	}
	return (&web.Server{UI: ui, BaseURL: "https://sendlater.test"}).Handler()
}

func serve(h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestPrecompressedAssets(t *testing.T) {
	h := spaServer(t)
	for _, c := range []struct{ accept, encoding, body string }{
		{"gzip, deflate, br, zstd", "br", "brotli bytes"},
		{"gzip", "gzip", "gzip bytes"},
		{"br;q=0, gzip;q=0.5", "gzip", "gzip bytes"},
		{"", "", "console.log('identity')"},
	} {
		rec := serve(h, "/assets/app-abc1.js", "Accept-Encoding", c.accept)
		hd := rec.Header()
		if rec.Code != 200 || hd.Get("Content-Encoding") != c.encoding || rec.Body.String() != c.body ||
			hd.Get("Vary") != "Accept-Encoding" || !strings.HasPrefix(hd.Get("Content-Type"), "text/javascript") ||
			!strings.Contains(hd.Get("Cache-Control"), "immutable") || hd.Get("ETag") == "" {
			t.Fatalf("Accept-Encoding %q: %d %v %q", c.accept, rec.Code, hd, rec.Body)
		}
		again := serve(h, "/assets/app-abc1.js", "Accept-Encoding", c.accept, "If-None-Match", hd.Get("ETag"))
		if again.Code != http.StatusNotModified {
			t.Fatalf("revalidating %s: %d", hd.Get("ETag"), again.Code)
		}
	}
	br := serve(h, "/assets/app-abc1.js", "Accept-Encoding", "br").Header().Get("ETag")
	gz := serve(h, "/assets/app-abc1.js", "Accept-Encoding", "gzip").Header().Get("ETag")
	if br == gz {
		t.Fatal("two encodings share an ETag")
	}
	if rec := serve(h, "/og-image.png"); rec.Header().Get("Cache-Control") != "no-cache" || rec.Header().Get("Vary") != "" {
		t.Fatalf("an unhashed file without copies: %v", rec.Header())
	}
}

func TestEveryPageCarriesItsHeadTags(t *testing.T) {
	h := spaServer(t)
	for _, c := range []struct {
		path, title, canonical string
		status                 int
		noindex                bool
	}{
		{"/", "<title>Sendlater</title>", "https://sendlater.test/", 200, false},
		{"/pricing", "<title>Pricing - Sendlater</title>", "https://sendlater.test/pricing", 200, false},
		{"/faq/", "<title>FAQ - Sendlater</title>", "https://sendlater.test/faq", 200, false},
		{"/auth/signin?next=/dashboard", "<title>Welcome back - Sendlater</title>", "https://sendlater.test/auth/signin", 200, false},
		{"/auth/whatever", "<title>Get yourself an account - Sendlater</title>", "https://sendlater.test/auth/signup", 200, false},
		{"/legal/privacy-policy", "<title>Privacy Policy - Sendlater</title>", "https://sendlater.test/legal/privacy-policy", 200, false},
		{"/legal/cookies", "<title>Terms of Service - Sendlater</title>", "https://sendlater.test/legal/terms-of-service", 200, false},
		{"/dashboard", "<title>Dashboard - Sendlater</title>", "https://sendlater.test/dashboard", 200, true},
		{"/settings/nothing", "<title>Settings - Sendlater</title>", "https://sendlater.test/settings/general", 200, true},
		{"/purchase/pro", "<title>Purchase - Sendlater</title>", "https://sendlater.test/purchase/pro", 200, true},
		{"/postpone/m1?code=abc", "<title>Postpone - Sendlater</title>", "https://sendlater.test/postpone/m1", 200, true},
		{"/purchase/gold", "<title>Page not found - Sendlater</title>", "https://sendlater.test/purchase/gold", 404, true},
		{"/no/such/page", "<title>Page not found - Sendlater</title>", "https://sendlater.test/no/such/page", 404, true},
		{"/assets/gone-1234.js", "<title>Page not found - Sendlater</title>", "https://sendlater.test/assets/gone-1234.js", 404, true},
	} {
		rec := serve(h, c.path)
		body := rec.Body.String()
		head := body[:strings.Index(body, "</head>")]
		if rec.Code != c.status || !strings.Contains(head, c.title) ||
			!strings.Contains(head, `<link rel="canonical" href="`+c.canonical+`">`) ||
			!strings.Contains(head, `<meta property="og:url" content="`+c.canonical+`">`) ||
			!strings.Contains(head, `<meta property="og:image" content="https://sendlater.test/og-image.png">`) ||
			!strings.Contains(head, `<meta name="twitter:card" content="summary_large_image">`) ||
			!strings.Contains(head, `<meta name="description" content="`) ||
			strings.Contains(head, `content="noindex"`) != c.noindex || !strings.Contains(body, "<div id=root>") {
			t.Errorf("%s: %d\n%s", c.path, rec.Code, head)
		}
	}
}

func TestRobotsAndSitemap(t *testing.T) {
	h := spaServer(t)
	robots := serve(h, "/robots.txt")
	if robots.Code != 200 || !strings.Contains(robots.Body.String(), "Disallow: /dashboard\n") ||
		!strings.Contains(robots.Body.String(), "Sitemap: https://sendlater.test/sitemap.xml\n") {
		t.Fatalf("robots.txt: %d %s", robots.Code, robots.Body)
	}
	sitemap := serve(h, "/sitemap.xml")
	body := sitemap.Body.String()
	if sitemap.Code != 200 || !strings.HasPrefix(sitemap.Header().Get("Content-Type"), "application/xml") {
		t.Fatalf("sitemap.xml: %d %v", sitemap.Code, sitemap.Header())
	}
	for _, want := range []string{"/", "/about", "/faq", "/contact", "/pricing", "/auth/signup", "/auth/signin", "/legal/terms-of-service", "/legal/privacy-policy"} {
		if !strings.Contains(body, "<loc>https://sendlater.test"+want+"</loc>") {
			t.Errorf("the sitemap lacks %s:\n%s", want, body)
		}
	}
	for _, private := range []string{"/dashboard", "/settings", "/purchase", "/postpone", "/auth/forgotpass"} {
		if strings.Contains(body, private) {
			t.Errorf("the sitemap lists %s", private)
		}
	}
}

func TestPagesAreGzippedForBrowsers(t *testing.T) {
	rec := serve(spaServer(t), "/pricing", "Accept-Encoding", "gzip")
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("%v", rec.Header())
	}
	if body, _ := io.ReadAll(rec.Body); len(body) == 0 {
		t.Fatal("empty page")
	}
}

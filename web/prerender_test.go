package web_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sendlater/sendlater/web"
)

// prerenderedUI is a build with two prerendered pages: home, which shows
// the operator's stats and testimonials, and pricing.
func prerenderedUI() fstest.MapFS {
	page := func(h1 string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`<!doctype html><html><head><meta charset="utf-8"></head><body><div id="root" data-prerendered="static"><h1>` + h1 + `</h1></div></body></html>`)}
	}
	return fstest.MapFS{
		"index.html":             {Data: []byte(`<!doctype html><html><head><meta charset="utf-8"></head><body><div id="root"></div></body></html>`)},
		"prerender/index.html":   page("Send important messages"),
		"prerender/pricing.html": page("Pricing"),
		"prerender/pages.json": {Data: []byte(`[{"path":"/","file":"index.html","site":["stats","testimonials"]},
			{"path":"/pricing","file":"pricing.html","site":[]}]`)},
	}
}

// TestPrerenderedPagesAreSentForTheirPaths: a visitor's first request for
// a prerendered page gets its HTML, with the page's head tags, status,
// caching and policy; other pages, a query, or a page showing operator
// content get the empty app as before.
func TestPrerenderedPagesAreSentForTheirPaths(t *testing.T) {
	h := (&web.Server{UI: prerenderedUI(), BaseURL: "https://sendlater.test"}).Handler()
	for _, c := range []struct {
		path, want string
		status     int
	}{
		{"/", "<h1>Send important messages</h1>", 200},
		{"/pricing", "<h1>Pricing</h1>", 200},
		{"/pricing/", "<h1>Pricing</h1>", 200},
		{"/pricing?plan=pro", `<div id="root"></div>`, 200},
		{"/faq", `<div id="root"></div>`, 200},
		{"/no/such/page", `<div id="root"></div>`, 404},
		{"/prerender/index.html", `<div id="root"></div>`, 404},
	} {
		rec := serve(h, c.path)
		body, hd := rec.Body.String(), rec.Header()
		if rec.Code != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %s in\n%s", c.path, rec.Code, c.status, c.want, body)
		}
		if !strings.Contains(body, "<title>") || !strings.Contains(body, `<link rel="canonical"`) {
			t.Errorf("%s: no head tags in\n%s", c.path, body)
		}
		if hd.Get("Cache-Control") != "no-cache" || !strings.HasPrefix(hd.Get("Content-Type"), "text/html") ||
			!strings.Contains(hd.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval';") {
			t.Errorf("%s: headers %v", c.path, hd)
		}
	}
}

// TestPrerenderedPagesKeepTheOperatorsContent: where the operator set
// content a prerendered page shows (it was rendered with the examples), the
// page is sent empty for the app to render theirs; content the page does
// not show leaves it prerendered.
func TestPrerenderedPagesKeepTheOperatorsContent(t *testing.T) {
	for _, c := range []struct {
		name        string
		site        *web.Site
		prerendered bool
	}{
		{"no site content", nil, true},
		{"examples named", &web.Site{Stats: "example"}, true},
		{"the about page's headline", &web.Site{Headline: "Letters that wait"}, true},
		{"live figures", &web.Site{Stats: "live"}, false},
		{"no figures", &web.Site{Stats: "off"}, false},
		{"no testimonials", &web.Site{Testimonials: &[]web.Testimonial{}}, false},
		{"their testimonials", &web.Site{Testimonials: &[]web.Testimonial{{Quote: "Kept my letter.", Name: "Ada"}}}, false},
	} {
		h := (&web.Server{UI: prerenderedUI(), Public: web.PublicSettings{Site: c.site}}).Handler()
		home := serve(h, "/").Body.String()
		if got := strings.Contains(home, "<h1>Send important messages</h1>"); got != c.prerendered {
			t.Errorf("%s: home prerendered %v, want %v:\n%s", c.name, got, c.prerendered, home)
		}
		if !c.prerendered && !strings.Contains(home, `<div id="root"></div>`) {
			t.Errorf("%s: home is not the empty app:\n%s", c.name, home)
		}
		if pricing := serve(h, "/pricing").Body.String(); !strings.Contains(pricing, "<h1>Pricing</h1>") {
			t.Errorf("%s: pricing, which shows no site content, is not prerendered:\n%s", c.name, pricing)
		}
	}
}

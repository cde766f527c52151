package web

import (
	"encoding/xml"
	"net/http"
)

// serveRobots lets crawlers in everywhere but the signed-in pages and the
// API, and names the sitemap.
func (s *Server) serveRobots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write([]byte("User-agent: *\n" +
		"Disallow: /api/\n" +
		"Disallow: /dashboard\n" +
		"Disallow: /settings/\n" +
		"Disallow: /purchase/\n" +
		"Disallow: /postpone/\n" +
		"Disallow: /open/\n" +
		"Disallow: /files/\n" +
		"Disallow: /firebase-action\n" +
		"Disallow: /unsubscribe/\n" +
		"\n" +
		"Sitemap: " + s.siteURL(r) + "/sitemap.xml\n"))
}

type sitemapURLSet struct {
	XMLName xml.Name `xml:"urlset"`
	NS      string   `xml:"xmlns,attr"`
	URLs    []struct {
		Loc string `xml:"loc"`
	} `xml:"url"`
}

// serveSitemap lists the public pages the page table marks for it.
func (s *Server) serveSitemap(w http.ResponseWriter, r *http.Request, pages *pageTable) {
	set := sitemapURLSet{NS: "http://www.sitemaps.org/schemas/sitemap/0.9"}
	for _, p := range pages.sitemapPaths() {
		set.URLs = append(set.URLs, struct {
			Loc string `xml:"loc"`
		}{s.siteURL(r) + p})
	}
	out, err := xml.MarshalIndent(set, "", "  ")
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write([]byte(xml.Header))
	w.Write(out)
	w.Write([]byte("\n"))
}

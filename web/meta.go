package web

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"

	"github.com/sendlater/sendlater/web/ui"
)

// pageTable is the SPA's page table (web/ui/src/config/pages.json), the one
// list of its pages: the SPA routes by it and the server writes each page's
// head tags from it, so crawlers and link previews see them without running
// the app, and answers 404 for a path that is no page.
type pageTable struct {
	Site struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Image       string `json:"image"`
		ImageWidth  int    `json:"imageWidth"`
		ImageHeight int    `json:"imageHeight"`
		ImageAlt    string `json:"imageAlt"`
	} `json:"site"`
	Pages    map[string]page `json:"pages"`
	NotFound struct {
		Title string `json:"title"`
	} `json:"notFound"`
}

type page struct {
	Path        string     `json:"path"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Param       *pageParam `json:"param"`
	Private     bool       `json:"private"`
	// Sitemap is true, or the parameter values listed in the sitemap.
	Sitemap json.RawMessage `json:"sitemap"`
}

// pageParam is what a page's one parameter may be: the keys of Titles (each
// with the page's title for it) or Values. Another value shows Fallback, or,
// without one, the 404 page.
type pageParam struct {
	Titles   map[string]string `json:"titles"`
	Values   []string          `json:"values"`
	Fallback string            `json:"fallback"`
}

func (p *pageParam) known(value string) bool {
	_, titled := p.Titles[value]
	return titled || slices.Contains(p.Values, value)
}

// pageHead is what the head of a served page says about it.
type pageHead struct {
	Title, Description string
	Canonical          string // the path to index, on the site's base URL
	NoIndex            bool
}

func loadPageTable() (*pageTable, error) {
	var t pageTable
	if err := json.Unmarshal(ui.Pages(), &t); err != nil {
		return nil, fmt.Errorf("web/ui/src/config/pages.json: %w", err)
	}
	return &t, nil
}

func (t *pageTable) title(title string) string {
	if title == "" {
		return t.Site.Name
	}
	return title + " - " + t.Site.Name
}

// lookup returns the head of the page at path, or false when no page is there.
func (t *pageTable) lookup(path string) (pageHead, bool) {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	for _, p := range t.Pages {
		value, ok := matchPath(p.Path, path)
		if !ok {
			continue
		}
		head := pageHead{Title: t.title(p.Title), Description: p.Description, Canonical: path, NoIndex: p.Private}
		if head.Description == "" {
			head.Description = t.Site.Description
		}
		if p.Param == nil {
			return head, true
		}
		if !p.Param.known(value) {
			if p.Param.Fallback == "" {
				return pageHead{}, false
			}
			value = p.Param.Fallback
		}
		// One canonical spelling (/auth/%73ignin is /auth/signin): the
		// head's canonical URL and the page-view counter's path.
		head.Canonical = p.withParam(value)
		if title := p.Param.Titles[value]; title != "" {
			head.Title = t.title(title)
		}
		return head, true
	}
	return pageHead{}, false
}

func (t *pageTable) notFound(path string) pageHead {
	return pageHead{Title: t.title(t.NotFound.Title), Description: t.Site.Description, Canonical: path, NoIndex: true}
}

// withParam is the page's path with its parameter set to value.
func (p page) withParam(value string) string {
	i := strings.Index(p.Path, ":")
	return p.Path[:i] + url.PathEscape(value)
}

// matchPath matches path against a pattern whose last segment may be a
// parameter (":name"), returning the parameter's value.
func matchPath(pattern, path string) (string, bool) {
	i := strings.Index(pattern, ":")
	if i < 0 {
		return "", pattern == path
	}
	rest, ok := strings.CutPrefix(path, pattern[:i])
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	value, err := url.PathUnescape(rest)
	return value, err == nil
}

// sitemapPaths are the paths the sitemap lists, in the table's order of
// names (sorted, so the sitemap is stable).
func (t *pageTable) sitemapPaths() []string {
	var out []string
	for _, name := range sortedKeys(t.Pages) {
		p := t.Pages[name]
		var values []string
		if json.Unmarshal(p.Sitemap, &values) == nil && values != nil {
			for _, v := range values {
				out = append(out, p.withParam(v))
			}
			continue
		}
		var listed bool
		if json.Unmarshal(p.Sitemap, &listed) != nil || !listed {
			continue
		}
		if p.Param == nil {
			out = append(out, p.Path)
			continue
		}
		for _, v := range sortedKeys(p.Param.Titles) {
			out = append(out, p.withParam(v))
		}
		for _, v := range p.Param.Values {
			out = append(out, p.withParam(v))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// headTags are the tags a page's head gets, with absolute URLs on base.
func (t *pageTable) headTags(h pageHead, base string) string {
	var b strings.Builder
	attr := html.EscapeString
	tag := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	pageURL := base + h.Canonical
	image := base + t.Site.Image
	tag(`<title>%s</title>`, attr(h.Title))
	tag(`<meta name="description" content="%s">`, attr(h.Description))
	if h.NoIndex {
		tag(`<meta name="robots" content="noindex">`)
	}
	tag(`<link rel="canonical" href="%s">`, attr(pageURL))
	tag(`<meta property="og:type" content="website">`)
	tag(`<meta property="og:site_name" content="%s">`, attr(t.Site.Name))
	tag(`<meta property="og:title" content="%s">`, attr(h.Title))
	tag(`<meta property="og:description" content="%s">`, attr(h.Description))
	tag(`<meta property="og:url" content="%s">`, attr(pageURL))
	tag(`<meta property="og:image" content="%s">`, attr(image))
	tag(`<meta property="og:image:width" content="%d">`, t.Site.ImageWidth)
	tag(`<meta property="og:image:height" content="%d">`, t.Site.ImageHeight)
	tag(`<meta property="og:image:alt" content="%s">`, attr(t.Site.ImageAlt))
	tag(`<meta name="twitter:card" content="summary_large_image">`)
	tag(`<meta name="twitter:title" content="%s">`, attr(h.Title))
	tag(`<meta name="twitter:description" content="%s">`, attr(h.Description))
	tag(`<meta name="twitter:image" content="%s">`, attr(image))
	tag(`<meta name="twitter:image:alt" content="%s">`, attr(t.Site.ImageAlt))
	return b.String()
}

package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"strings"
)

// prerenderDir holds the public pages the SPA's build prerendered
// (web/ui/scripts/prerender.mjs): each is index.html with the page's HTML,
// as an anonymous visitor first sees it, in its root, which the app
// hydrates. pages.json lists them.
const prerenderDir = "prerender"

// prerenderedPage is one entry of prerender/pages.json.
type prerenderedPage struct {
	Path string `json:"path"`
	File string `json:"file"`
	// Site names the operator's content (Site's JSON fields) the page shows:
	// prerendered with the shipped examples, it is not sent where the
	// operator set any of them.
	Site []string `json:"site"`
	// Plans are the plans (GET /api/plans) the page shows, where it shows
	// them: the build renders it once per set a server may sell, and the
	// one that is this server's is sent.
	Plans []PlanJSON `json:"plans"`
}

// loadPrerendered returns the prerendered HTML to send for each path
// instead of the empty index.html: every page of the build's list but those
// showing operator content (site), which the app renders in the browser as
// before, and, of a page showing the plans, the variant showing plans. None
// for a build without the list.
func loadPrerendered(ui fs.FS, site *Site, plans []PlanJSON) (map[string][]byte, error) {
	data, err := fs.ReadFile(ui, prerenderDir+"/pages.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []prerenderedPage
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s/pages.json: %w", prerenderDir, err)
	}
	out := map[string][]byte{}
	for _, p := range list {
		if _, done := out[p.Path]; done || site.sets(p.Site) || p.Plans != nil && !reflect.DeepEqual(p.Plans, plans) {
			continue
		}
		html, err := fs.ReadFile(ui, path.Join(prerenderDir, p.File))
		if err != nil {
			return nil, err
		}
		out[p.Path] = html
	}
	return out, nil
}

// sets reports whether the operator set any of the named fields of s (the
// SPA shows its example for a field left unset).
func (s *Site) sets(fields []string) bool {
	if s == nil {
		return false
	}
	for _, f := range fields {
		var set bool
		switch f {
		case "stats":
			set = s.Stats != "" && s.Stats != "example"
		case "headline":
			set = s.Headline != ""
		case "about":
			set = s.About != ""
		case "testimonials":
			set = s.Testimonials != nil
		case "team":
			set = s.Team != nil
		default:
			set = true // content this server does not know of: not the example for sure
		}
		if set {
			return true
		}
	}
	return false
}

// prerenderedFor is the prerendered page for a request, if any: a path of
// the list, with or without a final slash, and no query (what a query
// says, as ?next= or ?oobCode= on sign-in, is not in the prerendered HTML).
func prerenderedFor(pages map[string][]byte, urlPath, rawQuery string) ([]byte, bool) {
	if rawQuery != "" {
		return nil, false
	}
	if len(urlPath) > 1 {
		urlPath = strings.TrimSuffix(urlPath, "/")
	}
	html, ok := pages[urlPath]
	return html, ok
}

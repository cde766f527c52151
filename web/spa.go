package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

const uiNotBuilt = `<!doctype html><meta charset="utf-8"><title>Sendlater</title>
<p>The web app is not built into this binary. Run <code>make build</code> (or <code>make run</code>).</p>`

// staticFile is a file of the SPA build, read once at start-up, with the
// brotli and gzip copies the build wrote beside it (name.br, name.gz).
type staticFile struct {
	contentType string
	etag        string            // of the identity encoding; a copy's adds "-br" or "-gzip"
	encoded     map[string][]byte // "br", "gzip", "" (identity)
}

// staticEncodings are the copies the build writes, best first.
var staticEncodings = []struct{ name, suffix string }{{"br", ".br"}, {"gzip", ".gz"}}

func loadStatic(ui fs.FS) (map[string]*staticFile, error) {
	files := map[string]*staticFile{}
	err := fs.WalkDir(ui, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && name == prerenderDir {
			return fs.SkipDir // pages, sent for their paths (prerender.go)
		}
		if err != nil || d.IsDir() || name == "index.html" || strings.HasSuffix(name, ".br") || strings.HasSuffix(name, ".gz") {
			return err
		}
		data, err := fs.ReadFile(ui, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		f := &staticFile{contentType: contentType(name), etag: hex.EncodeToString(sum[:8]), encoded: map[string][]byte{"": data}}
		for _, e := range staticEncodings {
			if data, err := fs.ReadFile(ui, name+e.suffix); err == nil {
				f.encoded[e.name] = data
			}
		}
		files[name] = f
		return nil
	})
	return files, err
}

func contentType(name string) string {
	if strings.HasSuffix(name, ".webmanifest") {
		return "application/manifest+json"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// acceptsEncoding reports whether an Accept-Encoding header allows coding
// (a listed coding without q=0).
func acceptsEncoding(header, coding string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), coding) {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// serve writes f in the best encoding the client accepts, with its ETag (so
// a revalidation is a 304) and Vary when there is a choice of encodings.
func (f *staticFile) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	data, etag := f.encoded[""], f.etag
	if len(f.encoded) > 1 {
		h.Add("Vary", "Accept-Encoding")
		accept := r.Header.Get("Accept-Encoding")
		for _, e := range staticEncodings {
			if variant, ok := f.encoded[e.name]; ok && acceptsEncoding(accept, e.name) {
				h.Set("Content-Encoding", e.name)
				data, etag = variant, f.etag+"-"+e.name
				break
			}
		}
	}
	h.Set("ETag", `"`+etag+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// spaHandler serves the embedded SPA: its files (hashed assets cached for a
// year, the others revalidated by ETag), /robots.txt and /sitemap.xml, and
// for every other path index.html with that page's head tags (the page
// prerendered in it where the build made one, prerender.go): 200 for a page
// of the page table, 404 (the SPA shows its 404 page) for any other path.
func (s *Server) spaHandler() http.Handler {
	index, err := fs.ReadFile(s.uiFS(), "index.html")
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(uiNotBuilt))
		})
	}
	files, err := loadStatic(s.UI)
	if err != nil {
		panic(err) // an embedded or in-memory build that cannot be read is a broken binary
	}
	pages, err := loadPageTable()
	if err != nil {
		panic(err) // likewise: pages.json is embedded, and its tests parse it
	}
	prerendered, err := loadPrerendered(s.UI, s.Public.Site, s.planList())
	if err != nil {
		panic(err) // likewise: the build wrote the list and its pages together
	}
	public := s.Public
	public.PageViews = s.PageViews != nil
	public.SocialSignIn = len(s.flow().Providers()) > 0
	public.Passkeys = s.passkeysOn()
	settings := s.settingsFor(public, public.settingsTag(), s.newLiveStats())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if f, ok := files[name]; ok {
			if strings.HasPrefix(name, "assets/") {
				w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			} else {
				w.Header().Set("Cache-Control", "no-cache")
			}
			f.serve(w, r)
			return
		}
		switch name {
		case "robots.txt":
			s.serveRobots(w, r)
			return
		case "sitemap.xml":
			s.serveSitemap(w, r, pages)
			return
		}
		status, body := http.StatusOK, index
		head, found := pages.lookup(r.URL.Path)
		if !found {
			status, head = http.StatusNotFound, pages.notFound(r.URL.Path)
		} else if html, ok := prerenderedFor(prerendered, r.URL.Path, r.URL.RawQuery); ok {
			body = html
		}
		page := withHead(body, pages.headTags(head, s.siteURL(r))+settings(r.Context()))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			w.Write(page)
		}
	})
}

// withHead is index.html with tags inserted at the end of its head.
func withHead(index []byte, tags string) []byte {
	i := bytes.Index(index, []byte("</head>"))
	if i < 0 {
		return index
	}
	out := make([]byte, 0, len(index)+len(tags))
	out = append(out, index[:i]...)
	out = append(out, tags...)
	return append(out, index[i:]...)
}

// siteURL is the public origin for absolute links in the head and the
// sitemap: the configured base URL, else the request's own host.
func (s *Server) siteURL(r *http.Request) string {
	if s.BaseURL != "" {
		return strings.TrimSuffix(s.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) uiFS() fs.FS {
	if s.UI == nil {
		return emptyFS{}
	}
	return s.UI
}

type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

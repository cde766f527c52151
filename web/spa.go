package web

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

const uiNotBuilt = `<!doctype html><meta charset="utf-8"><title>Sendlater</title>
<p>The web app is not built into this binary. Run <code>make build</code> (or <code>make run</code>).</p>`

// spaHandler serves the embedded SPA: files as they are, hashed assets cached
// for a year, and index.html for every other path so the SPA's router decides
// (its 404 page included).
func (s *Server) spaHandler() http.Handler {
	index, err := fs.ReadFile(s.uiFS(), "index.html")
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(uiNotBuilt))
		})
	}
	files := http.FileServerFS(s.UI)
	modTime := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name != "" && name != "index.html" {
			if st, err := fs.Stat(s.UI, name); err == nil && !st.IsDir() {
				if strings.HasPrefix(name, "assets/") {
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				files.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "index.html", modTime, bytes.NewReader(index))
	})
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

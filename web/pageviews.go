package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// pageViewRequest is the SPA's beacon: the path of the page it shows.
type pageViewRequest struct {
	Path string `json:"path"`
}

// handlePageView counts a view of a public page of the page table under its
// canonical path (/auth/other counts as /auth/signup); a signed-in page, a
// path that is no page or anything else is refused, so the counters stay a
// short, known list. Nothing about the visitor is kept: the client address
// only counts towards core.LimitPageViewsClient.
func (s *Server) handlePageView() http.HandlerFunc {
	pages, err := loadPageTable()
	if err != nil {
		panic(err) // embedded, and parsed by its tests
	}
	return func(w http.ResponseWriter, r *http.Request) {
		var req pageViewRequest
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		head, ok := pages.lookup(req.Path)
		if !ok || head.NoIndex || len(req.Path) > 200 || req.Path == "" || req.Path[0] != '/' {
			writeError(w, r, core.ValidationError(map[string]string{"path": "The path must be a public page of the web app, e.g. /pricing"}))
			return
		}
		if err := s.PageViews.CountPageView(r.Context(), clientIP(r), head.Canonical); err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, nil)
	}
}

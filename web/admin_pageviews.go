package web

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/sendlater/sendlater/core"
)

// PageViewJSON is one page-view counter: a public page's views on a UTC day
// (GET /admin/pageviews, `sendlater stats --json`).
type PageViewJSON struct {
	Day   string `json:"day"` // 2006-01-02, UTC
	Path  string `json:"path"`
	Views int64  `json:"views"`
}

func NewPageViewJSON(c core.PageViewCount) PageViewJSON {
	return PageViewJSON{Day: c.Day, Path: c.Path, Views: c.Views}
}

func (j PageViewJSON) core() core.PageViewCount {
	return core.PageViewCount{Day: j.Day, Path: j.Path, Views: j.Views}
}

// handlePageViews lists the counters from ?since= (a UTC day, 2006-01-02).
func (s *AdminServer) handlePageViews(w http.ResponseWriter, r *http.Request) {
	since, err := time.Parse(core.PageViewDayFormat, r.URL.Query().Get("since"))
	if err != nil {
		writeError(w, r, core.ValidationError(map[string]string{"since": "The since parameter must be a day, e.g. 2026-01-31"}))
		return
	}
	counts, err := s.PageViews.PageViews(r.Context(), since)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(counts, NewPageViewJSON))
}

var _ core.PageViewStats = (*AdminClient)(nil)

// PageViews reads the running server's page-view counters from since's UTC
// day on.
func (c *AdminClient) PageViews(ctx context.Context, since time.Time) ([]core.PageViewCount, error) {
	var out []PageViewJSON
	q := url.Values{"since": {core.PageViewDay(since)}}
	if err := c.t.do(ctx, "GET", "/admin/pageviews?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return each(out, PageViewJSON.core), nil
}

package core

import (
	"context"
	"time"
)

// The first-party page-view counter (docs/api.md "Page views"): how often
// each public page of the web app was shown, per day. It keeps nothing about
// the visitor (no cookie, no address, no user), only a count per path and
// day, and only for the public pages, so the set of counters is bounded.

// PageViewCount is how often Path was shown on Day.
type PageViewCount struct {
	// Day is a UTC calendar day, 2006-01-02.
	Day   string
	Path  string
	Views int64
}

// PageViewDayFormat formats a PageViewCount's Day.
const PageViewDayFormat = time.DateOnly

// PageViewDay is the UTC day of t, as PageViewCount keeps it.
func PageViewDay(t time.Time) string { return t.UTC().Format(PageViewDayFormat) }

// PageViewStore keeps the counters.
type PageViewStore interface {
	// CountPageView adds one view of path on day, in one transaction, so
	// concurrent counts add up.
	CountPageView(ctx context.Context, day, path string) error
	// PageViews returns the counters of since (a day, inclusive) and later,
	// ordered by day, then path.
	PageViews(ctx context.Context, since string) ([]PageViewCount, error)
}

// PageViewStats is what an operator reads: the counters from a time on.
// PageViewService implements it over the store, web.AdminClient over a
// running server's admin socket.
type PageViewStats interface {
	PageViews(ctx context.Context, since time.Time) ([]PageViewCount, error)
}

// PageViewCounter is what the web app's beacon calls.
type PageViewCounter interface {
	// CountPageView counts a view of path, a public page's canonical path
	// (the caller checks it), for client (its address, used only to limit
	// how often one client counts). Beyond the limit: ETooManyRequests.
	CountPageView(ctx context.Context, client, path string) error
}

// LimitPageViewsClient bounds the views one client address may count: well
// above what a person browsing makes (one page every 5 seconds for 10
// minutes), so only a script inflating the counters is refused.
var LimitPageViewsClient = Limit{"pageview-client", 120, 10 * time.Minute}

// PageViewService counts page views under the per-client limit and reads
// them back.
type PageViewService struct {
	Store  PageViewStore
	Limits *Limiter
	Clock  Clock
}

var (
	_ PageViewStats   = (*PageViewService)(nil)
	_ PageViewCounter = (*PageViewService)(nil)
)

func (s *PageViewService) CountPageView(ctx context.Context, client, path string) error {
	if path == "" || len(path) > 200 {
		return ValidationError(map[string]string{"path": "The path must be a page of the web app"})
	}
	wait, err := s.Limits.Take(ctx, LimitTake{LimitPageViewsClient, s.Limits.Client(client)})
	if err != nil {
		return err
	}
	if wait > 0 {
		return &Error{Code: ETooManyRequests, Message: "Too many page views from this address. Try again later.", RetryAfter: wait}
	}
	return s.Store.CountPageView(ctx, PageViewDay(s.Clock.Now()), path)
}

func (s *PageViewService) PageViews(ctx context.Context, since time.Time) ([]PageViewCount, error) {
	return s.Store.PageViews(ctx, PageViewDay(since))
}

package web

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Site is the operator's content of the public pages (config site.*): the
// home page's statistics strip and testimonials, the about page's headline,
// text and team. A field left at its zero value leaves the SPA's shipped
// example in place (SPEC.md's template placeholders); an empty, non-nil
// list shows none.
type Site struct {
	// Stats is "example" (the fixed figures), "live" (Figures, from the
	// store) or "off" (no strip).
	Stats        string         `json:"stats,omitempty"`
	Figures      []Figure       `json:"figures,omitempty"` // live only: set per page from SiteCounts
	Headline     string         `json:"headline,omitempty"`
	About        string         `json:"about,omitempty"`
	Testimonials *[]Testimonial `json:"testimonials,omitempty"`
	Team         *[]TeamMember  `json:"team,omitempty"`
}

// Figure is one number of the statistics strip, rounded for show.
type Figure struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Testimonial is one quote of the home page.
type Testimonial struct {
	Quote string `json:"quote"`
	Name  string `json:"name"`
	Role  string `json:"role,omitempty"`
}

// TeamMember is one card of the about page's team.
type TeamMember struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
	Bio  string `json:"bio,omitempty"`
}

// SiteCounts are the store's totals the live strip shows.
type SiteCounts struct {
	Users    int
	Messages int
}

// SiteStatsMinimum is the smallest total the live strip shows: a young
// install's "3 users" says less than no number at all.
const SiteStatsMinimum = 100

// siteStatsEvery is how long live figures are reused: counting every record
// on each page load would cost the store more than the page.
const siteStatsEvery = 10 * time.Minute

// RoundFigure is n for show: rounded down to two significant figures, with
// "+" when that dropped something (12,480 is "12,000+"), or "" below
// SiteStatsMinimum.
func RoundFigure(n int) string {
	if n < SiteStatsMinimum {
		return ""
	}
	unit := 1
	for n/unit >= 100 {
		unit *= 10
	}
	r := n / unit * unit
	s := groupThousands(r)
	if r < n {
		s += "+"
	}
	return s
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// siteFigures are the live strip's figures from c: those below the
// minimum are left out, and with none the SPA shows no strip.
func siteFigures(c SiteCounts) []Figure {
	var out []Figure
	for _, f := range []struct {
		n     int
		label string
	}{{c.Users, "Users"}, {c.Messages, "Messages written"}} {
		if v := RoundFigure(f.n); v != "" {
			out = append(out, Figure{Value: v, Label: f.label})
		}
	}
	return out
}

// liveStats caches the live figures for siteStatsEvery. A count that fails
// shows no strip until the next try; the page is served either way.
type liveStats struct {
	count func(ctx context.Context) (SiteCounts, error)
	now   func() time.Time

	mu      sync.Mutex
	figures []Figure
	at      time.Time
}

func (l *liveStats) get(ctx context.Context) []Figure {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.at.IsZero() && now.Sub(l.at) < siteStatsEvery {
		return l.figures
	}
	l.at = now
	c, err := l.count(ctx)
	if err != nil {
		l.figures = nil
		return nil
	}
	l.figures = siteFigures(c)
	return l.figures
}

// settingsFor is the page's settings block: static but for live figures.
func (s *Server) settingsFor(public PublicSettings, static string, live *liveStats) func(ctx context.Context) string {
	if live == nil {
		return func(context.Context) string { return static }
	}
	return func(ctx context.Context) string {
		p := public
		site := *public.Site
		site.Figures = live.get(ctx)
		p.Site = &site
		return p.settingsTag()
	}
}

// newLiveStats is the live strip's cache, nil unless site.stats is live and
// the store can count.
func (s *Server) newLiveStats() *liveStats {
	if s.Public.Site == nil || s.Public.Site.Stats != "live" || s.SiteCounts == nil {
		return nil
	}
	now := time.Now
	if s.Clock != nil {
		now = s.Clock.Now
	}
	return &liveStats{count: s.SiteCounts, now: now}
}

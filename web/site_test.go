package web_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sendlater/sendlater/web"
)

func TestRoundFigureRoundsDownAndHidesSmallTotals(t *testing.T) {
	for n, want := range map[int]string{0: "", 99: "", 100: "100", 101: "100+", 999: "990+", 1200: "1,200",
		12480: "12,000+", 3215: "3,200+", 1234567: "1,200,000+"} {
		if got := web.RoundFigure(n); got != want {
			t.Errorf("RoundFigure(%d) = %q, want %q", n, got, want)
		}
	}
}

type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

var settingsRe = regexp.MustCompile(`<script type="application/json" id="public-settings">(.*?)</script>`)

// TestLiveSiteStatsAreRoundedHiddenAndCached: with site.stats live the page
// carries the store's totals rounded, leaves out those below the minimum,
// and counts again only after ten minutes (before: fixed invented figures).
func TestLiveSiteStatsAreRoundedHiddenAndCached(t *testing.T) {
	ui := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><html><head></head><body></body></html>`)}}
	counts := web.SiteCounts{Users: 12480, Messages: 42}
	calls := 0
	clock := &stepClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h := (&web.Server{UI: ui, Clock: clock, Public: web.PublicSettings{Site: &web.Site{Stats: "live"}},
		SiteCounts: func(context.Context) (web.SiteCounts, error) { calls++; return counts, nil }}).Handler()
	figures := func() []web.Figure {
		t.Helper()
		m := settingsRe.FindStringSubmatch(serve(h, "/").Body.String())
		if m == nil {
			t.Fatal("no settings block")
		}
		var p web.PublicSettings
		if err := json.Unmarshal([]byte(m[1]), &p); err != nil || p.Site == nil || p.Site.Stats != "live" {
			t.Fatalf("settings %s: %v", m[1], err)
		}
		return p.Site.Figures
	}
	if got := figures(); len(got) != 1 || got[0] != (web.Figure{Value: "12,000+", Label: "Users"}) {
		t.Errorf("figures %+v, want users only, rounded (42 messages are below the minimum)", got)
	}
	counts = web.SiteCounts{Users: 50, Messages: 3}
	clock.now = clock.now.Add(9 * time.Minute)
	if got := figures(); len(got) != 1 || calls != 1 {
		t.Errorf("within ten minutes: %+v after %d counts, want the cached figures after 1", got, calls)
	}
	clock.now = clock.now.Add(2 * time.Minute)
	if got := figures(); len(got) != 0 || calls != 2 {
		t.Errorf("after ten minutes, below the minimum: %+v after %d counts, want none after 2", got, calls)
	}
}

// TestOperatorSiteContentReachesThePage: the operator's testimonials (here
// none) and headline are in the page's settings block for the SPA.
func TestOperatorSiteContentReachesThePage(t *testing.T) {
	ui := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><html><head></head><body></body></html>`)}}
	h := (&web.Server{UI: ui, Public: web.PublicSettings{Site: &web.Site{Stats: "off", Headline: "<b>Letters</b>",
		Testimonials: &[]web.Testimonial{}}}}).Handler()
	body := serve(h, "/about").Body.String()
	want := `{"site":{"stats":"off","headline":"\u003cb\u003eLetters\u003c/b\u003e","testimonials":[]}}`
	if m := settingsRe.FindStringSubmatch(body); m == nil || m[1] != want {
		t.Errorf("the page carries %v, want %s", m, want)
	}
}

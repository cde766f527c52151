package web

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// TestQueryValueIsParseQuerys compares queryValue with url.ParseQuery's
// first value over random queries of the pieces that matter to either:
// separators, escapes, repeated and empty keys, and past the hand-parsed
// number of parameters.
func TestQueryValueIsParseQuerys(t *testing.T) {
	pieces := []string{"limit", "cursor", "=", "&", ";", "%", "%2", "%41", "%zz", "+", "a", "20", "lim%69t", "", "&&", "=="}
	fixed := []string{"", "limit=5", "limit=5&limit=6", "cursor=&cursor=x", "limit", "limit=1;cursor=2",
		"x=1&limit=2", "cursor=a+b", "cursor=a%2Fb", "&cursor=c&", "=x&cursor=y", "cursor=x=y",
		strings.Repeat("a=1&", 20) + "limit=3", strings.Repeat("a=1&", 15) + "limit=3"}
	r := rand.New(rand.NewPCG(35, 35))
	for i := range 20000 {
		raw := ""
		if i < len(fixed) {
			raw = fixed[i]
		} else {
			for range r.IntN(24) {
				raw += pieces[r.IntN(len(pieces))]
			}
		}
		v, _ := url.ParseQuery(raw)
		for _, key := range []string{"limit", "cursor", "a", ""} {
			if got, want := queryValue(raw, key), v.Get(key); got != want {
				t.Fatalf("queryValue(%q, %q) = %q, ParseQuery's %q", raw, key, got, want)
			}
		}
	}
}

func BenchmarkPageOf(b *testing.B) {
	for _, q := range []string{"", "limit=30&cursor=abcdef"} {
		b.Run(q, func(b *testing.B) {
			u := &url.URL{Path: "/api/messages", RawQuery: q}
			b.ReportAllocs()
			for b.Loop() {
				queryValue(u.RawQuery, "cursor")
				queryValue(u.RawQuery, "limit")
			}
		})
	}
}

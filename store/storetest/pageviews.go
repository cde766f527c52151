package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/sendlater/sendlater/core"
)

func needsPageViews(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.PageViews == nil {
			t.Skip("the backend keeps no page views")
		}
		fn(t, s)
	}
}

// Views count per day and path; a read from a day on lists that day and
// the later ones, by day, then path.
func testPageViews(t *testing.T, s Stores) {
	got, err := s.PageViews.PageViews(ctx, "2025-01-01")
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("PageViews of an empty store = %v, %v; want an empty list", got, err)
	}
	for _, v := range []struct{ day, path string }{
		{"2025-01-14", "/"}, {"2025-01-15", "/pricing"}, {"2025-01-15", "/"}, {"2025-01-15", "/"},
		{"2025-01-16", "/auth/signin"}, {"2025-01-15", "/auth/signin"},
	} {
		if err := s.PageViews.CountPageView(ctx, v.day, v.path); err != nil {
			t.Fatalf("CountPageView(%s, %s): %v", v.day, v.path, err)
		}
	}
	got, err = s.PageViews.PageViews(ctx, "2025-01-15")
	if err != nil {
		t.Fatal(err)
	}
	want := []core.PageViewCount{
		{Day: "2025-01-15", Path: "/", Views: 2},
		{Day: "2025-01-15", Path: "/auth/signin", Views: 1},
		{Day: "2025-01-15", Path: "/pricing", Views: 1},
		{Day: "2025-01-16", Path: "/auth/signin", Views: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PageViews since 2025-01-15 = %v, want %v", got, want)
	}
	if got, _ := s.PageViews.PageViews(ctx, "2025-01-17"); len(got) != 0 {
		t.Fatalf("PageViews since a later day = %v, want none", got)
	}
}

// Concurrent counts of one page add up: none is lost.
func testPageViewsConcurrent(t *testing.T, s Stores) {
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if err := s.PageViews.CountPageView(ctx, "2025-01-15", "/faq"); err != nil {
				errs <- fmt.Errorf("count %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.PageViews.PageViews(ctx, "2025-01-15")
	if err != nil || len(got) != 1 || got[0].Views != n {
		t.Fatalf("PageViews after %d concurrent counts = %v, %v", n, got, err)
	}
}

package core_test

import (
	"strconv"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A kept value comes back under the generation it was kept under only, and
// the cache stays within its bound.
func TestGenerationCache(t *testing.T) {
	var c core.GenerationCache[string]
	c.Put("ann", 7, "read at 7")
	if v, ok := c.Get("ann", 7); !ok || v != "read at 7" {
		t.Fatalf("Get at 7: %q %v", v, ok)
	}
	for _, gen := range []uint64{6, 8} {
		if v, ok := c.Get("ann", gen); ok {
			t.Fatalf("Get at %d: %q, kept at 7", gen, v)
		}
	}
	if _, ok := c.Get("bob", 7); ok {
		t.Fatal("Get of a key never kept")
	}
	for i := range 3 * core.GenerationCacheMax {
		c.Put(strconv.Itoa(i), 1, "v")
	}
	n := 0
	for i := range 3 * core.GenerationCacheMax {
		if _, ok := c.Get(strconv.Itoa(i), 1); ok {
			n++
		}
	}
	if n > core.GenerationCacheMax || n == 0 {
		t.Fatalf("%d values kept, bound %d", n, core.GenerationCacheMax)
	}
}

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
	// GetBytes is Get of the same key, and makes no string of it.
	key := []byte("ann")
	for _, gen := range []uint64{6, 7, 8} {
		v, ok := c.GetBytes(key, gen)
		if w, wok := c.Get("ann", gen); v != w || ok != wok {
			t.Fatalf("GetBytes at %d: %q %v, Get %q %v", gen, v, ok, w, wok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { c.GetBytes(key, 7) }); n != 0 {
		t.Fatalf("GetBytes: %v allocations", n)
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

package core_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// The derived keys must stay byte-identical across releases: existing
// stores, ID tokens and emailed refusal links depend on them.
func TestDeriveKeyIsStable(t *testing.T) {
	master := bytes.Repeat([]byte{0x5e}, 32)
	for purpose, want := range map[string]string{
		core.PurposeIDTokens:     "4d633b8d2a43c623fffabd5b889e4b26e328e90127633d081aa137c363d1cfd2",
		core.PurposeStoreHashes:  "a17be0e36a5ebfde2b12f8f7526e08f230711bd1b96a70bbf109328e64b4386f",
		core.PurposeRefusalLinks: "eb1aa8a14e12691272b1c92b97915d5b1800a10adaa53d2e83f69613fa091449",
	} {
		if got := hex.EncodeToString(core.DeriveKey(master, purpose)); got != want {
			t.Errorf("DeriveKey(%q) = %s, want %s", purpose, got, want)
		}
	}
	// A refusal link emailed before this release still opens.
	rt := core.NewRefusalTokens(core.DeriveKey(master, core.PurposeRefusalLinks))
	if addr, err := rt.Address("I7Z0GiNV6kLhPvEqHI7Wm3aGBgkbSBXptM666LY7XBnAip0HnugpYhKljqWJaRk"); err != nil || addr != "charles@example.com" {
		t.Fatalf("an old refusal token: %q %v", addr, err)
	}
}

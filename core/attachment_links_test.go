package core_test

import (
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// A file link's token is the file's id and 128 bits of MAC bound to the
// message, the file and the recipient (any case of the address): changing
// any one of them, or the key, gives another token.
func TestFileLinkTokensAreBound(t *testing.T) {
	links := core.NewFileLinks([]byte("a file link key of 32 bytes, ok!"))
	tok := links.Token("m1", "f1", "Ann@Example.com")
	id, mac, ok := strings.Cut(tok, ".")
	if !ok || id != "f1" || len(mac) != 22 {
		t.Fatalf("token %q: want f1 and 22 base64url characters", tok)
	}
	if links.Token("m1", "f1", "ann@example.com") != tok {
		t.Fatal("the address's case changed the token")
	}
	others := []string{
		links.Token("m2", "f1", "ann@example.com"),
		links.Token("m1", "f2", "ann@example.com"),
		links.Token("m1", "f1", "bob@example.com"),
		core.NewFileLinks([]byte("another key of 32 bytes, also ok")).Token("m1", "f1", "ann@example.com"),
		core.FileTestToken("f1"),
	}
	for _, o := range others {
		if _, m, _ := strings.Cut(o, "."); m == mac {
			t.Fatalf("%q shares the MAC of %q", o, tok)
		}
	}
}

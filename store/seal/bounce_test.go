package seal_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// A bounce mark's address, status and reason are sealed, bound to its
// message and its address's hash: moved to another message or under
// another address's hash, it does not open.
func TestBounceMarkSealedAndBound(t *testing.T) {
	s := mustSealer(t, bytes.Repeat([]byte{7}, 32))
	k := &core.BounceMark{MessageID: "m1", Address: "Bob@Example.org", SoftBounces: 3,
		Bounce: core.RecipientBounce{At: time.Unix(0, 42).UTC(), Email: core.BounceNotice, Status: "5.1.1", Reason: "550 REASON-77"}}
	sk := s.SealBounceMark(k)
	for _, clear := range []string{"Bob", "example.org", "REASON-77", "5.1.1"} {
		if bytes.Contains(bytes.ToLower(sk.Sealed), bytes.ToLower([]byte(clear))) {
			t.Fatalf("the sealed mark holds %q", clear)
		}
	}
	if !bytes.Equal(sk.Hash, s.AddressHash("bob@example.org")) {
		t.Fatal("not under the address's keyed hash (any case)")
	}
	got, err := s.OpenBounceMark(&sk)
	if err != nil || *got != *k {
		t.Fatalf("opened %+v, %v", got, err)
	}
	moved := sk
	moved.MessageID = "m2"
	if _, err := s.OpenBounceMark(&moved); err == nil {
		t.Fatal("a mark moved to another message opened")
	}
	moved = sk
	moved.Hash = s.AddressHash("cy@example.org")
	if _, err := s.OpenBounceMark(&moved); err == nil {
		t.Fatal("a mark moved under another address opened")
	}
}

package storetest

import (
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// testSuppressions: the suppression list keeps each address once (the
// first record), finds it in any case, counts it as refused for every
// send, lists newest first, and forgets it when removed. A recipient's
// bounce marks are testBounceMarks'.
func testSuppressions(t *testing.T, s Stores) {
	if s.Suppressions == nil || s.Delivery == nil {
		t.Skip("no suppressions")
	}
	list := func() []*core.Suppression {
		t.Helper()
		l, err := s.Suppressions.ListSuppressions(ctx)
		must(t, err)
		return l
	}
	if len(list()) != 0 {
		t.Fatal("a new store lists suppressions")
	}
	now := s.Clock.Now()
	must(t, s.Suppressions.Suppress(ctx, &core.Suppression{Address: "Grace@Example.com", At: now, Reason: "complaint (smtp): abuse"}))
	must(t, s.Suppressions.Suppress(ctx, &core.Suppression{Address: "grace@example.com", At: now.Add(time.Hour), Reason: "again"}))
	must(t, s.Suppressions.Suppress(ctx, &core.Suppression{Address: "ben@example.com", At: now.Add(time.Minute), Reason: "complaint (ses): abuse"}))
	l := list()
	if len(l) != 2 || l[0].Address != "ben@example.com" || l[1].Address != "grace@example.com" ||
		!l[1].At.Equal(now) || l[1].Reason != "complaint (smtp): abuse" {
		t.Fatalf("list %+v %+v", l[0], l[len(l)-1])
	}
	refused, err := s.Delivery.AddressRefused(ctx, " GRACE@example.com")
	must(t, err)
	if !refused {
		t.Fatal("a suppressed address must count as refused")
	}
	u := MustCreateUser(t, s, "ada@example.com")
	m := MustCreateMessage(t, s, u.ID, core.Interval1M)
	_, _, rs, err := s.Delivery.ReadForSend(ctx, m.ID, u.ID, []string{"ada@example.com", "grace@example.com"})
	must(t, err)
	if len(rs) != 2 || rs[0] || !rs[1] {
		t.Fatalf("ReadForSend's refusals %v", rs)
	}
	removed, err := s.Suppressions.Unsuppress(ctx, "GRACE@example.com")
	must(t, err)
	if !removed {
		t.Fatal("not removed")
	}
	if removed, err = s.Suppressions.Unsuppress(ctx, "grace@example.com"); err != nil || removed {
		t.Fatalf("removed twice: %v %v", removed, err)
	}
	if refused, _ = s.Delivery.AddressRefused(ctx, "grace@example.com"); refused || len(list()) != 1 {
		t.Fatal("still suppressed after removal")
	}

}

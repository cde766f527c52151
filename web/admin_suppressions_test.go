package web_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// `sendlater suppressions list|remove` through the admin socket and on the
// store alike, on both backends: the list shows the addresses, removing
// one lets it receive mail again, and both are in the audit log under the
// operator.
func TestAdminSuppressions(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		ctx := core.WithOperator(context.Background(), "alice (uid 1000)")
		c, _ := serveTestSocket(t, e)
		for name, admin := range map[string]core.Admin{"store": e.Admin, "socket": c} {
			if err := e.Store.Suppress(ctx, &core.Suppression{Address: "Ivy@Yahoo.com", At: e.Clock.Now(), Reason: "complaint (smtp): abuse"}); err != nil {
				t.Fatal(err)
			}
			l, err := admin.ListSuppressions(ctx)
			if err != nil || len(l) != 1 || l[0].Address != "ivy@yahoo.com" || l[0].Reason != "complaint (smtp): abuse" || !l[0].At.Equal(e.Clock.Now()) {
				t.Fatalf("%s: list %+v %v", name, l, err)
			}
			if err := admin.RemoveSuppression(ctx, "not an address"); core.ErrorCode(err) != core.EValidation {
				t.Fatalf("%s: a bad address: %v", name, err)
			}
			if err := admin.RemoveSuppression(ctx, "IVY@yahoo.com"); err != nil {
				t.Fatalf("%s: remove: %v", name, err)
			}
			if err := admin.RemoveSuppression(ctx, "ivy@yahoo.com"); core.ErrorCode(err) != core.ENotFound {
				t.Fatalf("%s: removed twice: %v", name, err)
			}
			if refused, _ := e.Store.AddressRefused(ctx, "ivy@yahoo.com"); refused {
				t.Fatalf("%s: still suppressed", name)
			}
		}
		audit, err := e.Admin.ListAudit(ctx, e.Clock.Now().Add(-1), 0)
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, a := range audit {
			if a.Actor == "" { // the store: ctx's operator; the socket: the peer's OS user
				t.Fatalf("actor %q", a.Actor)
			}
			actions = append(actions, a.Action+" "+a.Target)
		}
		slices.Sort(actions) // one clock instant: the log's order is the store's
		want := "[suppressions.list  suppressions.list  suppressions.remove ivy@yahoo.com suppressions.remove ivy@yahoo.com]"
		if got := fmtList(actions); got != want {
			t.Fatalf("audit %s, want %s", got, want)
		}
	})
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

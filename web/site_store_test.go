package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// TestStoresCountWhatTheLiveStripShows: both backends count their users
// and messages for site.stats live (SiteCounts, cmd/sendlater/config_site.go).
func TestStoresCountWhatTheLiveStripShows(t *testing.T) {
	testenv.Backends(t, testenv.Config{}, func(t *testing.T, e *testenv.Env) {
		st, ok := e.Store.(interface {
			SiteCounts(ctx context.Context) (users, messages int, err error)
		})
		if !ok {
			t.Fatalf("%T cannot count for the live strip", e.Store)
		}
		for i := range 3 {
			e.MustUser(t, fmt.Sprintf("u%d@example.com", i), "", core.PlanStarter)
		}
		users, messages, err := st.SiteCounts(context.Background())
		if err != nil || users != 3 || messages != 0 {
			t.Errorf("SiteCounts = %d users, %d messages, %v; want 3, 0", users, messages, err)
		}
	})
}

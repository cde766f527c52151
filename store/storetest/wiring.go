package storetest

import (
	"log/slog"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer"
)

// Graph is the service graph of internal/wiring over st, as the binary
// builds it, for a backend's tests and benchmarks of whole passes. o gives
// the mailer, the clock and any setting; what it leaves empty takes the
// suite's values: the real templates, a fixed master key, a base URL and a
// silent log. The mailer is released when tb ends.
func Graph(tb testing.TB, st core.Store, o wiring.Options) *wiring.Graph {
	tb.Helper()
	o.Store = st
	if o.Emails == nil {
		emails, err := mailer.NewTemplates("Sendlater", "http://sendlater.test")
		if err != nil {
			tb.Fatal(err)
		}
		o.Emails = emails
	}
	if o.MasterKey == nil {
		o.MasterKey = []byte("k3y-0f-32-bytes-for-aes-256-gcm!")
	}
	if o.BaseURL == "" {
		o.BaseURL = "http://sendlater.test"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	g, release, err := wiring.Build(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(release)
	return g
}

package bolt_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/mailertest"
)

// BenchmarkPassNoneDueOf1M is a whole delivery pass (deliveries, reminders,
// webhooks) over the 1M fixture when nothing is due: what the server's
// scheduler pays every tick.
func BenchmarkPassNoneDueOf1M(b *testing.B) {
	db := openFixture(b)
	sent := &mailertest.Mailer{}
	d := &core.Delivery{
		Messages: db, Users: db, Store: db, Mailer: sent, Clock: core.NewManualClock(fixtureStart),
		Reminders: core.DefaultReminders, Logger: slog.New(slog.DiscardHandler),
		Webhooks: noWebhooks{},
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := d.Run(ctx)
		if err != nil || res.Delivered+res.Reminded+res.Skipped != 0 {
			b.Fatalf("pass: %v %v", res, err)
		}
	}
	if len(sent.Sent()) != 0 {
		b.Fatal("the pass sent email")
	}
}

type noWebhooks struct{}

func (noWebhooks) Post(_ context.Context, url string, body []byte, headers map[string]string) error {
	panic("no webhook is due")
}

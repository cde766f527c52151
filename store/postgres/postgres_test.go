package postgres_test

import (
	"context"
	"testing"

	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

var ctx = context.Background()

// stores wraps one DB as every store of the contract.
func stores(db *postgres.DB) storetest.Stores {
	return storetest.Stores{
		Users: db, Messages: db, Sessions: db, Tokens: db, ActionCodes: db, Contacts: db,
		Delivery: db, Billing: db, Links: db, Health: db, Watcher: db, Limits: db, PageViews: db,
		Audit: db, Drafts: db, Devices: db, Passkeys: db, DeviceCodes: db, Suppressions: db, Attachments: db,
	}
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Stores { return stores(mustOpen(t, pgtest.URL(t))) })
}

// mustOpen opens the store at url with pgtest.Key, closed after the test.
func mustOpen(tb testing.TB, url string) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(ctx, url, postgres.Options{Key: pgtest.Key})
	if err != nil {
		tb.Fatalf("postgres.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

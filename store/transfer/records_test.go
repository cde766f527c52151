package transfer_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

var ctx = context.Background()

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func openBolt(tb testing.TB, key []byte) *bolt.DB {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "sendlater.db"), bolt.Options{Key: key, NoSync: true})
	must(tb, err)
	tb.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(tb testing.TB, key []byte) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(ctx, pgtest.URL(tb), postgres.Options{Key: key})
	must(tb, err)
	tb.Cleanup(func() { db.Close() })
	return db
}

// fill stores an installation of every kind of record: authors with 10,000
// messages in every state, sessions with rotated refresh tokens, access
// tokens, action codes, contact submissions, refusals, webhook calls and
// secrets, Stripe customers, applied billing events, linked provider
// accounts, the audit log, page-view counters, drafts, passkeys, device
// books, bounce marks and suppressed addresses. It returns how many of
// each.
func fill(tb testing.TB, db *bolt.DB, messages int) transfer.Counts {
	tb.Helper()
	clock := core.NewManualClock(storetest.Epoch.Add(1234567 * time.Nanosecond)) // not whole: times must survive to the nanosecond
	s := storetest.Stores{Users: db, Messages: db, Sessions: db, Tokens: db, ActionCodes: db, Contacts: db, Delivery: db, Clock: clock}
	const authors = 50
	var c transfer.Counts
	for i := range authors {
		u := storetest.MustCreateUser(tb, s, fmt.Sprintf("author%d@example.com", i))
		x := storetest.MustCreateSession(tb, s, u.ID)
		_, err := db.UpdateSession(ctx, x.ID, func(x *core.Session) error {
			x.RotatedHashes = append(x.RotatedHashes, x.RefreshHash)
			x.RefreshHash = core.HashSecret(core.NewSecret())
			return nil
		})
		must(tb, err)
		tok := storetest.MustCreateAccessToken(tb, s, u.ID, "cli")
		if i%2 == 0 {
			// Half made before tokens had scopes (nil), half with.
			_, err := db.UpdateAccessToken(ctx, tok.ID, func(t *core.AccessToken) error {
				t.Scopes = []string{core.ScopeMessagesRead, core.ScopeMessagesWrite}
				return nil
			})
			must(tb, err)
		}
		must(tb, db.CreateActionCode(ctx, &core.ActionCode{Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeVerifyEmail,
			UserID: u.ID, Email: u.Email, CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(72 * time.Hour)}))
		must(tb, db.SetWebhookSecret(ctx, u.ID, "whsec_"+u.ID))
		if i%2 == 0 {
			_, err := db.UpdateUser(ctx, u.ID, func(u *core.User) error { u.StripeCustomerID = "cus_" + u.ID; return nil })
			must(tb, err)
			_, err = db.LinkProvider(ctx, &core.ProviderLink{Provider: core.ProviderGitHub, Subject: "gh-" + u.ID, UserID: u.ID,
				Email: u.Email, PendingCodeHash: "h" + u.ID, CreatedAt: clock.Now()},
				func(u *core.User, _ []*core.ProviderLink) error {
					u.Providers = append(u.Providers, core.ProviderGitHub)
					return nil
				})
			must(tb, err)
			must(tb, db.RecordBillingEvent(ctx, "evt_"+u.ID, clock.Now()))
			c.ProviderLinks++
			c.BillingEvents++
		}
		c.Users++
		c.Sessions++
		c.AccessTokens++
		c.ActionCodes++
		c.WebhookSecrets++
	}
	must(tb, db.CreateActionCode(ctx, &core.ActionCode{Hash: "never-expires", Mode: core.ModeRecoverEmail, UserID: "gone"}))
	c.ActionCodes++
	users, _, err := db.ListUsers(ctx, core.UserFilter{})
	must(tb, err)
	// Created by concurrent writers, as requests would be: bbolt commits
	// them together.
	ms := make([]*core.Message, messages)
	var wg sync.WaitGroup
	const writers = 32
	for w := range writers {
		wg.Go(func() {
			for i := w; i < messages; i += writers {
				ms[i] = core.NewMessage(users[i%authors].ID, core.MessageInput{
					Title: fmt.Sprintf("Letter %d", i), Name: "Grace", Recipient: fmt.Sprintf("grace%d@example.com", i),
					Body:     fmt.Sprintf("Dear Grace, letter %d.", i),
					Interval: []core.Interval{core.Interval1M, core.Interval6M, core.Interval12M}[i%3],
				}, clock.Now().Add(time.Duration(i)*time.Second), time.UTC)
				ms[i].Events = []core.MessageEvent{{At: ms[i].CreatedAt, Kind: core.EventCreated, Actor: core.ActorDashboard,
					Recipient: ms[i].Recipient, Detail: "sealed detail"}}
				if err := db.CreateMessage(ctx, ms[i], nil); err != nil {
					tb.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	c.Events += messages
	clock.Add(time.Duration(messages) * time.Second)
	for i, m := range ms {
		c.Messages++
		switch i % 10 {
		case 1: // delivered, its webhook call pending with a failure
			_, err := db.SettleMessage(ctx, m.ID, func(m *core.Message) ([]*core.OutboxItem, error) {
				m.Status, m.DeliveredAt, m.EmailMessageID = core.StatusDelivered, clock.Now(), "id"+m.ID+"@x"
				return []*core.OutboxItem{{ID: m.ID, MessageID: m.ID, Owner: m.Owner, URL: "https://hooks.example/" + m.ID,
					Recipient: m.Recipient, DeliveredAt: clock.Now(), Attempts: 2, NextAttemptAt: clock.Now(),
					LastError: "503 from hooks.example"}}, nil
			})
			must(tb, err)
			c.Outbox++
		case 2: // a temporary failure
			_, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error {
				m.Attempts, m.LastError, m.NextAttemptAt = 1, "421 "+m.Recipient+" try later", clock.Now().Add(time.Hour)
				return nil
			})
			must(tb, err)
		case 3: // paused
			_, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error { m.IsActive = false; return nil })
			must(tb, err)
		case 4: // its address bounced (issue 31): the mark and the soft bounces counted before
			for _, hard := range []bool{false, false, true} {
				must(tb, db.RecordBounce(ctx, m.ID, func(m *core.Message) (*core.BounceWrite, error) {
					w := &core.BounceWrite{Address: m.Recipient, Soft: !hard}
					if hard {
						w.Hard = &core.RecipientBounce{At: clock.Now(), Email: core.BounceNotice, Status: "5.1.1",
							Reason: "550 5.1.1 <" + m.Recipient + ">: Recipient address rejected"}
					}
					return w, nil
				}))
			}
			c.BounceMarks++
		}
	}
	fillAccounts(tb, db, ms, clock.Now(), &c)
	for i := range 20 {
		must(tb, db.CreateContact(ctx, &core.ContactSubmission{Name: "Ada", Email: "ada@example.com",
			Message: fmt.Sprintf("hello %d", i), CreatedAt: clock.Now().Add(time.Duration(i) * time.Minute)}))
		must(tb, db.RefuseAddress(ctx, fmt.Sprintf("refuser%d@example.com", i), clock.Now()))
		c.Contacts++
		c.Refusals++
	}
	for i := range 3 {
		must(tb, db.Suppress(ctx, &core.Suppression{Address: fmt.Sprintf("complainer%d@example.com", i),
			At: clock.Now().Add(time.Duration(i) * time.Minute), Reason: "complaint (smtp): abuse"}))
		c.Suppressions++
	}
	for i := range 30 {
		e := &core.AuditEntry{At: clock.Now().Add(time.Duration(i%10) * time.Minute), Actor: "ops (uid 1000)",
			Action: "users.disable", Target: fmt.Sprintf("author%d@example.com", i)}
		if i%3 == 0 { // two entries at one time, and one without a target or detail
			e.At, e.Action, e.Target, e.Detail = clock.Now(), "messages.reveal", "", ""
		} else {
			e.Detail = "disabled the account"
		}
		must(tb, db.AppendAudit(ctx, e))
		c.Audit++
	}
	for day := range 3 {
		for i, path := range []string{"/", "/faq", "/pricing", "/about/privacy"} {
			for range day + i + 1 {
				must(tb, db.CountPageView(ctx, core.PageViewDay(clock.Now().AddDate(0, 0, -day)), path))
			}
			c.PageViews++
		}
	}
	return c
}

// dump reads every record of a store.
func dump(tb testing.TB, s transfer.Store) *transfer.Records {
	tb.Helper()
	all := &transfer.Records{}
	must(tb, s.Export(ctx, 333, func(r *transfer.Records) error {
		all.Users = append(all.Users, r.Users...)
		all.Messages = append(all.Messages, r.Messages...)
		all.Sessions = append(all.Sessions, r.Sessions...)
		all.AccessTokens = append(all.AccessTokens, r.AccessTokens...)
		all.ActionCodes = append(all.ActionCodes, r.ActionCodes...)
		all.Contacts = append(all.Contacts, r.Contacts...)
		all.Refusals = append(all.Refusals, r.Refusals...)
		all.Outbox = append(all.Outbox, r.Outbox...)
		all.WebhookSecrets = append(all.WebhookSecrets, r.WebhookSecrets...)
		all.ProviderLinks = append(all.ProviderLinks, r.ProviderLinks...)
		all.BillingEvents = append(all.BillingEvents, r.BillingEvents...)
		all.Events = append(all.Events, r.Events...)
		all.Audit = append(all.Audit, r.Audit...)
		all.PageViews = append(all.PageViews, r.PageViews...)
		all.Drafts = append(all.Drafts, r.Drafts...)
		all.Passkeys = append(all.Passkeys, r.Passkeys...)
		all.DeviceBooks = append(all.DeviceBooks, r.DeviceBooks...)
		all.Suppressions = append(all.Suppressions, r.Suppressions...)
		all.Attachments = append(all.Attachments, r.Attachments...)
		all.BounceMarks = append(all.BounceMarks, r.BounceMarks...)
		return nil
	}))
	// bbolt keeps the timelines by message, PostgreSQL in one sequence.
	slices.SortFunc(all.Events, func(a, b *seal.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return all
}

// sameRecords fails unless a and b hold the same records, byte for byte
// and to the nanosecond.
func sameRecords(tb testing.TB, what string, a, b *transfer.Records) {
	tb.Helper()
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		fa, fb := va.Field(i), vb.Field(i)
		if fa.Len() != fb.Len() {
			tb.Fatalf("%s: %d %s, want %d", what, fb.Len(), va.Type().Field(i).Name, fa.Len())
		}
		for j := range fa.Len() {
			if !reflect.DeepEqual(fa.Index(j).Interface(), fb.Index(j).Interface()) {
				tb.Fatalf("%s: %s[%d] differs:\n got %+v\nwant %+v", what, va.Type().Field(i).Name, j,
					fb.Index(j).Elem().Interface(), fa.Index(j).Elem().Interface())
			}
		}
	}
}

func wantReport(tb testing.TB, what string, rep transfer.Report, err error, copied transfer.Counts, changed int) {
	tb.Helper()
	must(tb, err)
	if rep.Copied != copied || rep.Changed != changed {
		tb.Fatalf("%s: copied %+v, %d changed; want %+v, %d changed", what, rep.Copied, rep.Changed, copied, changed)
	}
}

func total(c transfer.Counts) int {
	return c.Users + c.Messages + c.Sessions + c.AccessTokens + c.ActionCodes + c.Contacts + c.Refusals + c.Outbox +
		c.WebhookSecrets + c.ProviderLinks + c.BillingEvents + c.Events + c.Audit + c.PageViews + c.Drafts + c.Passkeys +
		c.DeviceBooks + c.Suppressions + c.Attachments + c.Files + c.BounceMarks
}

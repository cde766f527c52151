package postgres

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/seal"
)

// recorder is a pgx tracer that keeps the statements run while it is on.
type recorder struct {
	mu    sync.Mutex
	on    bool
	stmts []pgx.TraceQueryStartData
}

func (r *recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.stmts = append(r.stmts, data)
	}
	return ctx
}

func (r *recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The statements of a batch are recorded as statements.
func (r *recorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (r *recorder) TraceBatchQuery(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchQueryData) {
	r.TraceQueryStart(ctx, conn, pgx.TraceQueryStartData{SQL: data.SQL, Args: data.Args})
}

func (r *recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// record runs fn and returns the statements it ran, but those that begin
// and end transactions or set a transaction's settings, the notifications
// sent after a commit (notify.go), which read no table, and the listener's
// and the barrier's statements on the replicas table (generations.go), one
// row per serving process, read whole.
func (r *recorder) record(fn func()) []pgx.TraceQueryStartData {
	r.mu.Lock()
	r.on, r.stmts = true, nil
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return slices.DeleteFunc(r.stmts, func(d pgx.TraceQueryStartData) bool {
		return regexp.MustCompile(`^(?i)\s*(begin|commit|rollback|set local|select pg_notify|listen|insert into replicas|select id, extract\(epoch from lease_until)`).MatchString(d.SQL)
	})
}

// TestHotQueriesSeekIndexes runs every hot operation of the store,
// records the exact statements it sends, and checks with EXPLAIN that
// PostgreSQL can plan each with the index meant for it, never scanning a
// whole table. Sequential scans are switched off for the EXPLAIN: on the
// test's small tables one could be cheaper, and the question is whether an
// index serves the query at all (docs/benchmarks.md has the plans over
// 1,000,000 messages).
func TestHotQueriesSeekIndexes(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	cfg.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(pgtest.Key)
	if err != nil {
		t.Fatal(err)
	}
	s := &DB{pool: pool, seal: sealer, reminders: core.DefaultReminders}
	if err := s.start(ctx, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const owners, each = 40, 50
	var firstOwner *core.User
	var aSession *core.Session
	err = s.update(ctx, func(tx pgx.Tx) error {
		for i := range owners {
			u := &core.User{ID: fmt.Sprintf("owner%04d", i), Email: fmt.Sprintf("author%d@example.com", i), CreatedAt: epoch}
			if _, err := tx.Exec(ctx, insertUser, s.userArgs(u)...); err != nil {
				return err
			}
			if i == 0 {
				firstOwner = u
			}
			for j := range each {
				now := epoch.Add(time.Duration(i*each+j) * time.Minute)
				m := core.NewMessage(u.ID, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com",
					Body: "a letter", Interval: core.Interval6M}, now, time.UTC)
				if err := s.putMessage(ctx, tx, nil, m); err != nil {
					return err
				}
			}
			for j := range 10 {
				x := &core.Session{ID: fmt.Sprintf("s%d-%d", i, j), UserID: u.ID, RefreshHash: core.HashSecret(core.NewSecret()),
					RotatedHashes: []string{core.HashSecret(core.NewSecret())}, ExpiresAt: epoch.AddDate(0, 1, j)}
				if _, err := tx.Exec(ctx, insertSession, sessionArgs(x)...); err != nil {
					return err
				}
				aSession = x
				c := &core.ActionCode{Hash: core.HashSecret(core.NewSecret()), Mode: core.ModeVerifyEmail, UserID: u.ID,
					ExpiresAt: epoch.AddDate(0, 0, 3+j)}
				if _, err := tx.Exec(ctx, insertActionCode, actionCodeArgs(c)...); err != nil {
					return err
				}
				if err := s.putOutboxItem(ctx, tx, &core.OutboxItem{ID: fmt.Sprintf("w%d-%d", i, j), Owner: u.ID,
					URL: "https://hooks.example/x", NextAttemptAt: epoch.AddDate(1, 0, j)}); err != nil {
					return err
				}
			}
			t := &core.AccessToken{ID: "tok" + u.ID, UserID: u.ID, Hash: core.HashSecret(u.ID)}
			if _, err := tx.Exec(ctx, insertToken, tokenArgs(t)...); err != nil {
				return err
			}
			for _, p := range []string{core.ProviderGitHub, core.ProviderGoogle} {
				if err := addLink(ctx, tx, &core.ProviderLink{Provider: p, Subject: p + u.ID, UserID: u.ID, CreatedAt: epoch}); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, "insert into billing_events (id, recorded_at) values ($1, $2)", "evt_"+u.ID, epoch.UnixNano()); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, "analyze")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	noneDue := epoch // every sendDate is months later
	ops := []struct {
		name    string
		indexes []string // each must serve one of the op's statements
		run     func() error
	}{
		{"list an author's 20 newest", []string{"messages_owner_created"}, func() error {
			_, _, err := s.ListMessages(ctx, core.MessageFilter{Owner: firstOwner.ID, Limit: 20})
			return err
		}},
		{"list everyone's 20 newest (admin)", []string{"messages_created"}, func() error {
			_, _, err := s.ListMessages(ctx, core.MessageFilter{Limit: 20, Offset: 20})
			return err
		}},
		{"count an author's messages", []string{"messages_owner_created"}, func() error {
			_, err := s.CountMessages(ctx, firstOwner.ID)
			return err
		}},
		{"create (plan check)", []string{"users_pkey", "messages_owner_created"}, func() error {
			m := core.NewMessage(firstOwner.ID, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}, epoch, time.UTC)
			return s.CreateMessage(ctx, m, func(*core.User, bool) error { return nil })
		}},
		{"find a message", []string{"messages_pkey"}, func() error {
			_, err := s.FindMessageByID(ctx, "nope")
			return ignoreNotFound(err)
		}},
		{"read a message, its author and refusals for a send", []string{"messages_pkey", "users_pkey", "refusals_pkey"}, func() error {
			ms, _, err := s.ListMessages(ctx, core.MessageFilter{Owner: firstOwner.ID, Limit: 1})
			if err != nil {
				return err
			}
			_, _, _, err = s.ReadForSend(ctx, ms[0].ID, firstOwner.ID, []string{"r@example.com"})
			return err
		}},
		{"due deliveries", []string{"messages_due"}, func() error { _, err := s.DueMessages(ctx, noneDue, 100); return err }},
		{"due reminders", []string{"messages_remind"}, func() error { _, err := s.DueReminders(ctx, noneDue, 100); return err }},
		{"claim deliveries, none due", []string{"messages_due"}, func() error {
			_, err := s.ClaimDeliveries(ctx, noneDue, 128, func(*core.Message) bool { return true })
			return err
		}},
		{"claim reminders, none due", []string{"messages_remind"}, func() error {
			_, err := s.ClaimReminders(ctx, noneDue, 128, func(*core.Message) bool { return true })
			return err
		}},
		{"claim the outbox, none due", []string{"outbox_due"}, func() error {
			_, err := s.ClaimOutbox(ctx, noneDue, noneDue.Add(time.Minute), 64)
			return err
		}},
		{"find a session by refresh token", []string{"sessions_refresh_hash", "sessions_rotated_hashes"}, func() error {
			_, _, err := s.FindSessionByRefreshHash(ctx, aSession.RotatedHashes[0])
			return err
		}},
		{"sign out everywhere", []string{"sessions_user"}, func() error {
			return s.DeleteUserSessions(ctx, "nobody", "")
		}},
		{"sweep expired sessions", []string{"sessions_expiry"}, func() error {
			_, err := s.DeleteExpiredSessions(ctx, epoch)
			return err
		}},
		{"sweep expired action codes", []string{"action_codes_expiry"}, func() error {
			_, err := s.DeleteExpiredActionCodes(ctx, epoch)
			return err
		}},
		{"find a user by email", []string{"users_email_key_key"}, func() error {
			_, err := s.FindUserByEmail(ctx, "AUTHOR7@example.com")
			return err
		}},
		{"find an access token", []string{"access_tokens_hash_key"}, func() error {
			_, err := s.FindAccessTokenByHash(ctx, core.HashSecret("owner0007"))
			return err
		}},
		{"list access tokens", []string{"access_tokens_user"}, func() error {
			_, err := s.ListAccessTokens(ctx, firstOwner.ID)
			return err
		}},
		{"find a user by Stripe customer", []string{"users_stripe_customer_key"}, func() error {
			_, err := s.FindUserByStripeCustomer(ctx, "cus_nobody")
			if core.ErrorCode(err) == core.EUserNotFound {
				return nil
			}
			return err
		}},
		{"a billing event seen", []string{"billing_events_pkey"}, func() error {
			_, err := s.BillingEventSeen(ctx, "evt_1")
			return err
		}},
		{"record a billing event", []string{"billing_events_recorded"}, func() error {
			return s.RecordBillingEvent(ctx, "evt_1", epoch)
		}},
		{"find a provider link", []string{"provider_links_pkey"}, func() error {
			_, err := s.FindProviderLink(ctx, core.ProviderGitHub, "gh-nobody")
			if core.ErrorCode(err) == core.ENotFound {
				return nil
			}
			return err
		}},
		{"list a user's provider links", []string{"provider_links_user_provider_key"}, func() error {
			_, err := s.ListProviderLinks(ctx, firstOwner.ID)
			return err
		}},
		{"hit a limit", []string{"limit_events_pkey"}, func() error {
			_, err := s.HitLimit(ctx, "signin-client:k", core.LimitEvent{ID: "e", At: epoch, Expires: epoch.Add(time.Hour)}, epoch)
			return err
		}},
		{"seal the rows left in clear (at open), none", []string{"users_name_clear", "contacts_clear"}, func() error {
			return s.sealClearRows(ctx)
		}},
		{"sweep limit events", []string{"limit_events_expiry"}, func() error {
			_, err := s.DeleteExpiredLimitEvents(ctx, epoch)
			return err
		}},
		// Last: they change the messages the reads above find.
		{"claim due deliveries", []string{"messages_due", "messages_pkey"}, func() error {
			now := time.Now()
			_, err := s.ClaimDeliveries(ctx, now, 64, func(m *core.Message) bool {
				m.Status, m.LeaseUntil = core.StatusSending, now.Add(time.Minute)
				return true
			})
			return err
		}},
		{"settle outcomes together", []string{"messages_pkey"}, func() error {
			ms, _, err := s.ListMessages(ctx, core.MessageFilter{Owner: firstOwner.ID, Limit: 3})
			if err != nil {
				return err
			}
			var calls []*settleCall
			for _, m := range ms {
				calls = append(calls, &settleCall{id: m.ID, fn: func(m *core.Message) ([]*core.OutboxItem, error) {
					m.Status = core.StatusDelivered
					m.Events = append(m.Events, core.MessageEvent{At: epoch, Kind: core.EventSent, Recipient: "r@example.com"})
					return nil, nil
				}})
			}
			if !s.settleTogether(ctx, calls, newBounceBatch(nil)) {
				return fmt.Errorf("the group did not commit")
			}
			return calls[0].err
		}},
	}
	for _, op := range ops {
		var opErr error
		stmts := rec.record(func() { opErr = op.run() })
		if opErr != nil {
			t.Fatalf("%s: %v", op.name, opErr)
		}
		var plans []string
		for _, st := range stmts {
			plan := explain(t, pool, st)
			if strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s scans a table:\n%s\n%s", op.name, st.SQL, plan)
			}
			plans = append(plans, plan)
		}
		for _, index := range op.indexes {
			if !strings.Contains(strings.Join(plans, "\n"), " on "+index) && !strings.Contains(strings.Join(plans, "\n"), "using "+index) {
				t.Errorf("%s does not use %s:\n%s", op.name, index, strings.Join(plans, "\n---\n"))
			}
		}
	}
}

func ignoreNotFound(err error) error {
	if core.ErrorCode(err) == core.EMessageNotFound {
		return nil
	}
	return err
}

// explain returns the plans PostgreSQL makes for a recorded statement with
// its arguments: the custom plan of these arguments and the generic plan a
// prepared statement may switch to after five runs.
func explain(tb testing.TB, pool *pgxpool.Pool, st pgx.TraceQueryStartData) string {
	tb.Helper()
	var b bytes.Buffer
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), "set local enable_seqscan = off; set local plan_cache_mode = "+mode); err != nil {
				return err
			}
			rows, err := tx.Query(context.Background(), "explain "+st.SQL, st.Args...)
			if err != nil {
				return err
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			fmt.Fprintf(&b, "%s:\n%s\n", mode, strings.Join(lines, "\n"))
			return err
		})
		if err != nil {
			tb.Fatalf("explain %s: %v", st.SQL, err)
		}
	}
	return b.String()
}

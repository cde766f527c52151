package transfer_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

// An installation of 10,000 messages moves bolt -> postgres -> bolt with
// nothing lost: every record of the last store equals the first's, sealed
// bytes and all, and every message opens to the same text. Each copy run
// again changes nothing.
func TestRoundTrip(t *testing.T) {
	key := pgtest.Key
	pg := openPostgres(t, key) // first: without a server the test skips before the fill
	src := openBolt(t, key)
	counts := fill(t, src, 10000)
	back := openBolt(t, key)

	rep, err := transfer.Copy(ctx, src, pg)
	wantReport(t, "bolt -> postgres", rep, err, counts, total(counts))
	rep, err = transfer.Copy(ctx, src, pg)
	wantReport(t, "bolt -> postgres again", rep, err, counts, 0)
	rep, err = transfer.Copy(ctx, pg, back)
	wantReport(t, "postgres -> bolt", rep, err, counts, total(counts))
	rep, err = transfer.Copy(ctx, pg, back)
	wantReport(t, "postgres -> bolt again", rep, err, counts, 0)

	want := dump(t, src)
	sameRecords(t, "postgres", want, dump(t, pg))
	sameRecords(t, "bolt after the round trip", want, dump(t, back))
	must(t, back.Check())
	accountsOpen(t, src, pg, want)
	accountsOpen(t, src, back, want)

	// Through the stores' own reads: the same messages, opened, in the
	// same order, and the same indexes.
	for _, s := range []interface {
		core.MessageStore
		core.DeliveryStore
	}{pg, back} {
		ms, n, err := s.ListMessages(ctx, core.MessageFilter{})
		must(t, err)
		orig, _, err := src.ListMessages(ctx, core.MessageFilter{})
		must(t, err)
		if n != counts.Messages || !reflect.DeepEqual(ms, orig) {
			t.Fatalf("%T: the opened messages differ from the source's", s)
		}
		far := storetest.Epoch.AddDate(2, 0, 0)
		for _, due := range []func(core.MessageStore) ([]*core.Message, error){
			func(s core.MessageStore) ([]*core.Message, error) { return s.DueMessages(ctx, far, 0) },
			func(s core.MessageStore) ([]*core.Message, error) { return s.DueReminders(ctx, far, 0) },
		} {
			got, err := due(s)
			must(t, err)
			wantDue, err := due(src)
			must(t, err)
			if len(got) == 0 || !reflect.DeepEqual(got, wantDue) {
				t.Fatalf("%T: %d due, want the source's %d", s, len(got), len(wantDue))
			}
		}
		refused, err := s.AddressRefused(ctx, "REFUSER7@example.com")
		must(t, err)
		secret, err := s.WebhookSecret(ctx, ms[0].Owner)
		must(t, err)
		if !refused || secret != "whsec_"+ms[0].Owner {
			t.Fatalf("%T: refused %v, secret %q", s, refused, secret)
		}
	}

	// The indexes of payments and social sign-in came along.
	l := want.ProviderLinks[0]
	for _, s := range []interface {
		core.BillingStore
		core.ProviderLinkStore
	}{pg, back} {
		u, err := s.FindUserByStripeCustomer(ctx, "cus_"+l.UserID)
		must(t, err)
		links, err := s.ListProviderLinks(ctx, l.UserID)
		must(t, err)
		seen, err := s.BillingEventSeen(ctx, "evt_"+l.UserID)
		must(t, err)
		if u.ID != l.UserID || len(links) != 1 || !reflect.DeepEqual(links[0], l) || !seen {
			t.Fatalf("%T: customer's user %s, links %+v, event seen %v", s, u.ID, links, seen)
		}
	}

	// `audit list` and `stats` read the same from every store.
	wantAudit, err := src.ListAudit(ctx, time.Time{}, 0)
	must(t, err)
	wantViews, err := src.PageViews(ctx, "")
	must(t, err)
	for _, s := range []interface {
		core.AuditStore
		core.PageViewStore
	}{pg, back} {
		audit, err := s.ListAudit(ctx, time.Time{}, 0)
		must(t, err)
		views, err := s.PageViews(ctx, "")
		must(t, err)
		if len(audit) != counts.Audit || !reflect.DeepEqual(audit, wantAudit) || !reflect.DeepEqual(views, wantViews) {
			t.Fatalf("%T: audit log %+v, page views %+v; want %+v, %+v", s, audit, views, wantAudit, wantViews)
		}
	}
}

// A page-view counter copied again is set to the source's count, not added
// to, in both directions: one counter more in the source changes one
// record.
func TestCopyAgainSetsCounters(t *testing.T) {
	pg := openPostgres(t, pgtest.Key)
	src := openBolt(t, pgtest.Key)
	counts := fill(t, src, 10)
	back := openBolt(t, pgtest.Key)
	rep, err := transfer.Copy(ctx, src, pg)
	wantReport(t, "bolt -> postgres", rep, err, counts, total(counts))
	rep, err = transfer.Copy(ctx, pg, back)
	wantReport(t, "postgres -> bolt", rep, err, counts, total(counts))

	day := core.PageViewDay(storetest.Epoch)
	for _, step := range []struct {
		what     string
		from, to interface {
			transfer.Store
			core.PageViewStore
		}
	}{{"bolt -> postgres", src, pg}, {"postgres -> bolt", pg, back}} {
		must(t, step.from.CountPageView(ctx, day, "/faq"))
		rep, err := transfer.Copy(ctx, step.from, step.to)
		wantReport(t, step.what+" after a view", rep, err, counts, 1)
		want, err := step.from.PageViews(ctx, "")
		must(t, err)
		got, err := step.to.PageViews(ctx, "")
		must(t, err)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: page views %+v, want %+v", step.what, got, want)
		}
	}
}

// Sealed bytes cannot be copied into a store with another key; nothing is
// written.
func TestCopyRefusesAnotherKey(t *testing.T) {
	dst := openPostgres(t, bytes.Repeat([]byte{0x17}, 32))
	src := openBolt(t, pgtest.Key)
	fill(t, src, 10)
	_, err := transfer.Copy(ctx, src, dst)
	if core.ErrorCode(err) != core.EInvalid {
		t.Fatalf("Copy with another key: %v", err)
	}
	c, err := dst.Counts(ctx)
	must(t, err)
	if c != (transfer.Counts{}) {
		t.Fatalf("the refused copy wrote %+v", c)
	}
}

// A destination that held other records fails the final count check, with
// a sentence saying so.
func TestCopyVerifiesCounts(t *testing.T) {
	src := openPostgres(t, pgtest.Key)
	u := &core.User{Email: "ada@example.com"}
	must(t, src.CreateUser(ctx, u))
	dst := openBolt(t, pgtest.Key)
	must(t, dst.CreateUser(ctx, &core.User{Email: "someone-else@example.com"}))
	_, err := transfer.Copy(ctx, src, dst)
	if core.ErrorCode(err) != core.EConflict || core.ErrorMessage(err) !=
		"After the copy the destination holds 2 users, the source 1: it held other records before. Copy into an empty store." {
		t.Fatalf("Copy into a used store: %v", err)
	}
}

// `store copy` brings the bounce records (issue 31) both ways, sealed as
// they are: the suppression list reads the same (address, reason, time),
// a suppressed address is still refused and can be removed by its address
// in any case, and a bouncing recipient keeps its mark and its count of
// soft bounces.
func TestCopyBounceRecords(t *testing.T) {
	key := pgtest.Key
	pg := openPostgres(t, key)
	src := openBolt(t, key)
	counts := fill(t, src, 20)
	back := openBolt(t, key)
	if counts.Suppressions != 3 {
		t.Fatalf("the source has %d suppressed addresses", counts.Suppressions)
	}
	rep, err := transfer.Copy(ctx, src, pg)
	wantReport(t, "bolt -> postgres", rep, err, counts, total(counts))
	rep, err = transfer.Copy(ctx, pg, back)
	wantReport(t, "postgres -> bolt", rep, err, counts, total(counts))
	rep, err = transfer.Copy(ctx, pg, back)
	wantReport(t, "postgres -> bolt again", rep, err, counts, 0)

	wantList, err := src.ListSuppressions(ctx)
	must(t, err)
	srcMessages, _, err := src.ListMessages(ctx, core.MessageFilter{})
	must(t, err)
	must(t, core.JoinBounceMarks(ctx, src, srcMessages...))
	bouncing := 0
	for _, m := range srcMessages {
		if m.RecipientList()[0].Bouncing() {
			bouncing++
		}
	}
	if len(wantList) != 3 || bouncing != 2 {
		t.Fatalf("the source lists %d suppressed addresses and %d bouncing recipients", len(wantList), bouncing)
	}
	for _, s := range []interface {
		core.SuppressionStore
		core.MessageStore
		core.DeliveryStore
	}{pg, back} {
		list, err := s.ListSuppressions(ctx)
		must(t, err)
		if !reflect.DeepEqual(list, wantList) {
			t.Fatalf("%T: suppressions %+v, want %+v", s, list, wantList)
		}
		for _, m := range srcMessages {
			got, err := s.FindMessageByID(ctx, m.ID)
			must(t, err)
			must(t, core.JoinBounceMarks(ctx, s, got))
			if g, w := got.RecipientList()[0], m.RecipientList()[0]; !reflect.DeepEqual(g.Bounce, w.Bounce) || g.SoftBounces != w.SoftBounces {
				t.Fatalf("%T: message %s's recipient bounce %+v (%d soft), want %+v (%d soft)", s, m.ID, g.Bounce, g.SoftBounces,
					w.Bounce, w.SoftBounces)
			}
		}
		refused, err := s.AddressRefused(ctx, "Complainer1@Example.com")
		must(t, err)
		removed, err := s.Unsuppress(ctx, "COMPLAINER1@example.com")
		must(t, err)
		after, err := s.AddressRefused(ctx, "complainer1@example.com")
		must(t, err)
		if !refused || !removed || after {
			t.Fatalf("%T: suppressed address refused %v, removed %v, refused after removal %v", s, refused, removed, after)
		}
	}
}

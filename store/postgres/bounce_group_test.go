package postgres_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/store/storetest"
)

// softBounce is a bounce write of one soft bounce to m's recipient, with
// an event that names the call.
func softBounce(m *core.Message, call int) *core.BounceWrite {
	return &core.BounceWrite{Address: m.Recipient, Soft: true, Event: &core.MessageEvent{At: storetest.Epoch,
		Kind: core.EventBounced, Recipient: m.Recipient, Detail: fmt.Sprintf("bounce %d", call)}}
}

// checkBounces fails t unless message m holds exactly want soft bounces
// and, for each call in calls, its event exactly times times.
func checkBounces(t *testing.T, db *postgres.DB, m *core.Message, want int, calls []int, times int) {
	t.Helper()
	marks, err := db.ListBounceMarks(ctx, []string{m.ID})
	must(t, err)
	got := 0
	if len(marks) == 1 {
		got = marks[0].SoftBounces
	}
	if len(marks) > 1 || got != want {
		t.Errorf("message %s: marks %+v, want %d soft bounces", m.ID, marks, want)
	}
	events, err := db.ListMessageEvents(ctx, m.ID)
	must(t, err)
	seen := map[string]int{}
	for _, e := range events {
		if e.Kind == core.EventBounced {
			seen[e.Detail]++
		}
	}
	for _, i := range calls {
		if n := seen[fmt.Sprintf("bounce %d", i)]; n != times {
			t.Errorf("message %s: the event of call %d written %d times, want %d", m.ID, i, n, times)
		}
	}
}

// A message deleted while its bounce is in a group fails the group's
// transaction (the marks' foreign key): every other call of the group is
// recorded again alone and lands exactly once; only the deleted
// message's caller fails, with not-found.
func TestBounceOfADeletedMessageFailsOnlyItsCaller(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	postgres.SetBounceGather(db, 300*time.Millisecond, 5*time.Second)
	ms := []*core.Message{storetest.MustCreateMessage(t, s, u.ID, core.Interval1M), storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)}
	doomed := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	const n = 20
	var runs atomic.Int64
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.RecordBounce(ctx, ms[i%2].ID, func(m *core.Message) (*core.BounceWrite, error) {
				runs.Add(1)
				return softBounce(m, i), nil
			})
		}()
	}
	time.Sleep(50 * time.Millisecond) // the others gather by now (a gap of 300 ms)
	var deletes atomic.Int64
	err := db.RecordBounce(ctx, doomed.ID, func(m *core.Message) (*core.BounceWrite, error) {
		if deletes.Add(1) == 1 { // from another connection, before the group writes
			must(t, db.DeleteMessage(ctx, doomed.ID))
		}
		return softBounce(m, n), nil
	})
	wantCode(t, err, core.EMessageNotFound)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	for j, m := range ms {
		var calls []int
		for i := j; i < n; i += 2 {
			calls = append(calls, i)
		}
		checkBounces(t, db, m, n/2, calls, 1)
	}
	if runs.Load() <= n {
		t.Errorf("%d runs of the others' fns for %d calls: none shared the deleted message's group", runs.Load(), n)
	}
}

// A COMMIT whose outcome is unknown (the connection cut after it left)
// is every writing caller's error, never retried: whether the server
// committed the group (each bounce once) or not (none), no bounce lands
// twice. A call that wrote nothing keeps its own outcome.
func TestBounceGroupCommitCutIsEveryonesError(t *testing.T) {
	url := pgtest.URL(t)
	p := pgtest.StartProxy(t, url)
	db := mustOpen(t, p.URL)
	direct := mustOpen(t, url)
	s := stores(direct)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	postgres.SetBounceGather(db, 300*time.Millisecond, 5*time.Second)
	for _, committed := range []bool{true, false} {
		m := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
		const n = 8
		cut := p.CutAtCommit(committed, "insert into bounce_marks")
		errs := make([]error, n+1)
		var runs atomic.Int64
		var wg sync.WaitGroup
		for i := range n + 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = db.RecordBounce(ctx, m.ID, func(m *core.Message) (*core.BounceWrite, error) {
					runs.Add(1)
					if i == n {
						return nil, nil // writes nothing
					}
					return softBounce(m, i), nil
				})
			}()
		}
		wg.Wait()
		select {
		case <-cut.Done:
		case <-time.After(5 * time.Second):
			t.Fatal("no COMMIT was cut")
		}
		for i, err := range errs[:n] {
			if core.ErrorCode(err) != core.EOutcomeUnknown {
				t.Errorf("committed %v, call %d: %v, want %s", committed, i, err, core.EOutcomeUnknown)
			}
		}
		if errs[n] != nil {
			t.Errorf("committed %v: the call that wrote nothing: %v", committed, errs[n])
		}
		if runs.Load() != n+1 {
			t.Errorf("committed %v: %d runs of fn for %d calls: a group was retried", committed, runs.Load(), n+1)
		}
		calls, times, want := []int{0, 1, 2, 3, 4, 5, 6, 7}, 0, 0
		if committed {
			times, want = 1, n
		}
		checkBounces(t, direct, m, want, calls, times)
	}
}

// A bounce that no other joins waits the gap for company, not the most:
// then it is recorded alone.
func TestALoneBounceWaitsOnlyTheGap(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	m := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	const gap, most = 100 * time.Millisecond, 20 * time.Second
	postgres.SetBounceGather(db, gap, most)
	start := time.Now()
	must(t, db.RecordBounce(ctx, m.ID, func(m *core.Message) (*core.BounceWrite, error) { return softBounce(m, 0), nil }))
	if took := time.Since(start); took < gap || took > most/2 {
		t.Errorf("a lone bounce took %s: want the gap of %s, well under the most", took, gap)
	}
	checkBounces(t, db, m, 1, []int{0}, 1)
}

// One group writes its marks and events as one multi-row insert each
// (bounceRows): an address bounced hard, softly, then hard again in one
// group ends with the last hard bounce and one soft bounce, as three
// transactions would leave it, and each event is written once in order,
// its empty fields empty again.
func TestAGroupWritesOneAddressInOrder(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	m := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	other := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	postgres.SetBounceGather(db, 500*time.Millisecond, 5*time.Second)
	hard := func(reason string) *core.RecipientBounce {
		return &core.RecipientBounce{At: storetest.Epoch, Email: core.BounceDelivery, Status: "5.1.1", Reason: reason}
	}
	writes := []struct {
		id string
		w  *core.BounceWrite
	}{
		{m.ID, &core.BounceWrite{Address: m.Recipient, Hard: hard("first"),
			Event: &core.MessageEvent{At: storetest.Epoch, Kind: core.EventBounced, Recipient: m.Recipient, Detail: "first"}}},
		{other.ID, &core.BounceWrite{Address: other.Recipient, Soft: true}},
		{m.ID, &core.BounceWrite{Address: strings.ToUpper(m.Recipient), Soft: true,
			Event: &core.MessageEvent{At: storetest.Epoch.Add(time.Second), Kind: core.EventComplained}}}, // no recipient, no detail
		{m.ID, &core.BounceWrite{Address: m.Recipient, Hard: hard("last"), Soft: true,
			Event: &core.MessageEvent{At: storetest.Epoch.Add(2 * time.Second), Kind: core.EventBounced, Detail: "last",
				NextAttemptAt: storetest.Epoch.Add(time.Hour)}}},
	}
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.RecordBounce(ctx, w.id, func(*core.Message) (*core.BounceWrite, error) { return w.w, nil })
		}()
		time.Sleep(20 * time.Millisecond) // in this order, in one group (a gap of 500 ms)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	marks, err := db.ListBounceMarks(ctx, []string{m.ID, other.ID})
	must(t, err)
	byMessage := map[string]*core.BounceMark{}
	for _, k := range marks {
		byMessage[k.MessageID] = k
	}
	if k := byMessage[m.ID]; len(marks) != 2 || k == nil || k.Bounce.Reason != "last" || k.SoftBounces != 2 || k.Address != m.Recipient {
		t.Errorf("marks %+v: want %s's last hard bounce and 2 soft bounces", marks, m.Recipient)
	}
	if k := byMessage[other.ID]; k == nil || k.SoftBounces != 1 || !k.Bounce.At.IsZero() {
		t.Errorf("the other message's mark %+v: want one soft bounce", k)
	}
	events, err := db.ListMessageEvents(ctx, m.ID)
	must(t, err)
	var got []string
	for _, e := range events {
		next := "none"
		if !e.NextAttemptAt.IsZero() {
			next = e.NextAttemptAt.Sub(storetest.Epoch).String()
		}
		got = append(got, fmt.Sprintf("%s %q %q %s", e.Kind, e.Recipient, e.Detail, next))
	}
	want := []string{
		fmt.Sprintf("%s %q %q none", core.EventBounced, m.Recipient, "first"),
		fmt.Sprintf("%s %q %q none", core.EventComplained, "", ""),
		fmt.Sprintf("%s %q %q 1h0m0s", core.EventBounced, "", "last"),
	}
	if fmt.Sprint(got[len(got)-3:]) != fmt.Sprint(want) {
		t.Errorf("events %q, want them ending in %q", got, want)
	}
	var xmins []string
	for _, id := range []string{m.ID, other.ID} {
		x, err := postgres.Xmin(db, "bounce_marks", "message_id", id)
		must(t, err)
		xmins = append(xmins, x)
	}
	if xmins[0] != xmins[1] {
		t.Errorf("written by transactions %v: want one group", xmins)
	}
}

// A bounce reads its message's recipients and owner, not its contents:
// the fn sees no title, body or last error.
func TestABounceReadsNoContents(t *testing.T) {
	db := mustOpen(t, pgtest.URL(t))
	s := stores(db)
	s.Clock = core.NewManualClock(storetest.Epoch)
	u := storetest.MustCreateUser(t, s, "ada@example.com")
	m := storetest.MustCreateMessage(t, s, u.ID, core.Interval1M)
	if m.Title == "" || m.Body == "" {
		t.Fatalf("the fixture has no contents: %+v", m)
	}
	must(t, db.RecordBounce(ctx, m.ID, func(got *core.Message) (*core.BounceWrite, error) {
		if got.Title != "" || got.Body != "" || got.LastError != "" {
			t.Errorf("a bounce read the contents: %q %q %q", got.Title, got.Body, got.LastError)
		}
		if got.Owner != u.ID || len(got.RecipientList()) != len(m.RecipientList()) || got.RecipientList()[0].Address != m.RecipientList()[0].Address {
			t.Errorf("a bounce read %+v, want the owner and the recipients of %+v", got, m)
		}
		return softBounce(got, 0), nil
	}))
	checkBounces(t, db, m, 1, []int{0}, 1)
}

package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// testBounceMarksConcurrent: bounces recorded at the same moment on a few
// messages (the stores gather them into shared commits, issue 31) each
// land exactly once: the soft counts are exact, every event is written
// once, and a call whose fn fails, or whose message does not exist, fails
// alone.
func testBounceMarksConcurrent(t *testing.T, s Stores) {
	now := s.Clock.Now()
	u := MustCreateUser(t, s, "ada@example.com")
	ms := make([]*core.Message, 3)
	for i := range ms {
		ms[i] = MustCreateMessage(t, s, u.ID, core.Interval1M)
	}
	errAbort := errors.New("abort")
	const n = 90
	failing := func(i int) bool { return i%7 == 3 }
	gone := core.NewID() // no such message
	errs := make([]error, n+1)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n + 1 {
		id := gone
		if i < n {
			id = ms[i%len(ms)].ID
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = s.Messages.RecordBounce(ctx, id, func(m *core.Message) (*core.BounceWrite, error) {
				if m.ID != id {
					return nil, fmt.Errorf("call %d read message %s, want %s", i, m.ID, id)
				}
				if failing(i) {
					return nil, errAbort
				}
				return &core.BounceWrite{Address: m.Recipient, Soft: true, Event: &core.MessageEvent{At: now,
					Kind: core.EventBounced, Recipient: m.Recipient, Detail: fmt.Sprintf("bounce %d", i)}}, nil
			})
		}()
	}
	close(start)
	wg.Wait()
	wantCode(t, errs[n], core.EMessageNotFound)
	want := make([]int, len(ms))
	for i := range n {
		switch {
		case failing(i) && !errors.Is(errs[i], errAbort):
			t.Errorf("call %d: err = %v, want its fn's", i, errs[i])
		case !failing(i) && errs[i] != nil:
			t.Errorf("call %d: %v", i, errs[i])
		case !failing(i):
			want[i%len(ms)]++
		}
	}
	for j, m := range ms {
		marks, err := s.Messages.ListBounceMarks(ctx, []string{m.ID})
		must(t, err)
		if len(marks) != 1 || marks[0].SoftBounces != want[j] {
			t.Errorf("message %d: marks %+v, want one with %d soft bounces", j, marks, want[j])
		}
		events, err := s.Messages.ListMessageEvents(ctx, m.ID)
		must(t, err)
		seen := map[string]int{}
		for _, e := range events {
			if e.Kind == core.EventBounced {
				seen[e.Detail]++
			}
		}
		for i := j; i < n; i += len(ms) {
			if got, w := seen[fmt.Sprintf("bounce %d", i)], map[bool]int{false: 1, true: 0}[failing(i)]; got != w {
				t.Errorf("message %d: the event of call %d written %d times, want %d", j, i, got, w)
			}
		}
		if len(seen) != want[j] {
			t.Errorf("message %d: %d bounce events, want %d", j, len(seen), want[j])
		}
	}
}

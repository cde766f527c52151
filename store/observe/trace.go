package observe

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sendlater/sendlater/core"
)

// Traces makes a span of each transaction under a recorded span (a
// request's, a pass's), named after the store's method that ran it
// ("store.CreateMessage") with the backend (db.system.name) and the access
// (store.access: read or write; statement for PostgreSQL's statements that
// commit by themselves, outside a transaction). A transaction outside a traced call makes
// none. Its zero value traces nothing.
type Traces struct {
	t      atomic.Pointer[core.Tracer]
	system string
}

// Set makes t the tracer of the transactions of the backend system
// ("bbolt", "postgresql").
func (o *Traces) Set(t core.Tracer, system string) {
	o.system = system
	o.t.Store(&t)
}

func noEnd(error) {}

// Start starts the span of a transaction of access ("read", "write") in
// ctx: the returned function ends it with the transaction's error.
func (o *Traces) Start(ctx context.Context, access string) func(error) {
	span := o.start(ctx, access)
	if span == nil {
		return noEnd
	}
	return span.End
}

type inSpan struct{}

// Begin is Start, and ctx marked as inside the store's span (InSpan): the
// statements run with it make no span of their own.
func (o *Traces) Begin(ctx context.Context, access string) (context.Context, func(error)) {
	span := o.start(ctx, access)
	if span == nil {
		return ctx, noEnd
	}
	return context.WithValue(ctx, inSpan{}, true), span.End
}

// start is the span of a transaction of access in ctx, or nil: none when
// ctx is not recorded, is inside a span of the store's already, or is part
// of its caller's span (core.WithoutStoreSpans: a request's
// authentication). Its name needs a walk of the stack: only a recorded
// transaction pays it.
func (o *Traces) start(ctx context.Context, access string) core.Span {
	if o == nil {
		return nil // a store made without one (a test's)
	}
	tp := o.t.Load()
	if tp == nil || !(*tp).Traced(ctx) || InSpan(ctx) || core.StoreSpansOff(ctx) {
		return nil
	}
	_, span := (*tp).Start(ctx, method(), core.SpanClient)
	span.SetString("db.system.name", o.system)
	span.SetString("store.access", access)
	return span
}

// InSpan reports whether ctx is inside a span of the store's (Begin).
func InSpan(ctx context.Context) bool {
	return ctx.Value(inSpan{}) != nil
}

// method is the span name of the store's exported method that runs the
// transaction: the first caller outside this package whose name is
// exported ("store.CreateMessage" of ".../store/bolt.(*DB).CreateMessage.func1"),
// or "store.transaction". Each return address is named once (names):
// symbolizing a stack on every recorded transaction cost more than the
// rest of its span.
//
// The stack is walked a few frames first (the store's method is two or
// three above, under Start and view or update): walking 24 frames of a
// request's deep stack on every recorded transaction was a third of what
// tracing cost a create (docs/benchmarks-history.md).
func method() string {
	var pcs [24]uintptr
	if name := methodOf(pcs[:shallow], 4); name != "" {
		return name
	}
	if name := methodOf(pcs[:], 4); name != "" {
		return name
	}
	return "store.transaction"
}

// shallow is how many frames method reads first.
const shallow = 6

// methodOf is the first exported store method among the callers from
// skip on, at most len(pcs) of them; "" if none.
func methodOf(pcs []uintptr, skip int) string {
	n := runtime.Callers(skip, pcs)
	for _, pc := range pcs[:n] {
		if v, ok := names.Load(pc); ok {
			if name := v.(string); name != "" {
				return name
			}
			continue
		}
		var name string
		if f := runtime.FuncForPC(pc - 1); f != nil {
			if m := exported(f.Name()); m != "" {
				name = "store." + m // made once, not per span
			}
		}
		names.Store(pc, name)
		if name != "" {
			return name
		}
	}
	return ""
}

// names are the span names of return addresses ("store.CreateMessage";
// "": not a store's exported method).
var names sync.Map

// exported is the method name of fn when it is an exported method of a
// store (its receiver a type of the package), else "".
func exported(fn string) string {
	i := strings.Index(fn, ").")
	if i < 0 || !strings.Contains(fn, "/store/") || strings.Contains(fn, "/store/observe.") {
		return ""
	}
	name := fn[i+2:]
	if j := strings.IndexByte(name, '.'); j >= 0 {
		name = name[:j] // a closure inside the method
	}
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	return name
}

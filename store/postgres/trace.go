package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/store/observe"
)

// statementTracer makes a span of each statement or batch that runs
// outside a transaction (a single statement commits by itself): the
// transactions' spans (inTx, readThenWrite) cover the statements inside
// them. A process without tracing pays one atomic load a statement.
type statementTracer struct{ traces *observe.Traces }

var (
	_ pgx.QueryTracer = statementTracer{}
	_ pgx.BatchTracer = statementTracer{}
)

type statementEnd struct{}

func (t statementTracer) start(ctx context.Context, conn *pgx.Conn) context.Context {
	if observe.InSpan(ctx) || conn.PgConn().TxStatus() != 'I' {
		return ctx
	}
	ctx, end := t.traces.Begin(ctx, "statement")
	if !observe.InSpan(ctx) {
		return ctx // not traced
	}
	return context.WithValue(ctx, statementEnd{}, end)
}

func endStatement(ctx context.Context, err error) {
	if end, ok := ctx.Value(statementEnd{}).(func(error)); ok {
		end(err)
	}
}

func (t statementTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return t.start(ctx, conn)
}

func (statementTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	endStatement(ctx, data.Err)
}

func (t statementTracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return t.start(ctx, conn)
}

func (statementTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (statementTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	endStatement(ctx, data.Err)
}

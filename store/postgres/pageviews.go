package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
)

// The page-view counters live in the table page_views
// (migrations/0012_page_views.sql), one row per day and path.

var _ core.PageViewStore = (*DB)(nil)

// CountPageView adds one view of path on day: one upsert, so concurrent
// counts from every replica add up.
func (s *DB) CountPageView(ctx context.Context, day, path string) error {
	_, err := s.exec(ctx, `insert into page_views (day, path, views) values ($1, $2, 1)
		on conflict (day, path) do update set views = page_views.views + 1`, day, path)
	return wrapErr(err)
}

// PageViews returns the counters of since and later, by day, then path.
func (s *DB) PageViews(ctx context.Context, since string) ([]core.PageViewCount, error) {
	rows, err := s.pool.Query(ctx, `select day, path, views from page_views where day >= $1 order by day, path`, since)
	if err != nil {
		return nil, wrapErr(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (core.PageViewCount, error) {
		var c core.PageViewCount
		err := row.Scan(&c.Day, &c.Path, &c.Views)
		return c, err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	if out == nil {
		out = []core.PageViewCount{}
	}
	return out, nil
}

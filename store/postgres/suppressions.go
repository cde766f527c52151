package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

func (s *DB) Suppress(ctx context.Context, sp *core.Suppression) error {
	ss := s.seal.SealSuppression(sp)
	_, err := s.exec(ctx, `insert into suppressions (hash, suppressed_at, address, reason) values ($1, $2, $3, $4)
		on conflict (hash) do nothing`, ss.Hash, ss.At, ss.Address, ss.Reason)
	return wrapErr(err)
}

func (s *DB) ListSuppressions(ctx context.Context) ([]*core.Suppression, error) {
	rows, err := s.pool.Query(ctx, "select hash, suppressed_at, address, reason from suppressions order by suppressed_at desc, hash")
	if err != nil {
		return nil, wrapErr(err)
	}
	sealed, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (seal.Suppression, error) {
		var ss seal.Suppression
		err := row.Scan(&ss.Hash, &ss.At, &ss.Address, &ss.Reason)
		return ss, err
	})
	if err != nil {
		return nil, wrapErr(err)
	}
	out := make([]*core.Suppression, 0, len(sealed))
	for i := range sealed {
		sp, err := s.seal.OpenSuppression(&sealed[i])
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

func (s *DB) Unsuppress(ctx context.Context, email string) (bool, error) {
	tag, err := s.exec(ctx, "delete from suppressions where hash = $1", s.seal.AddressHash(email))
	if err != nil {
		return false, wrapErr(err)
	}
	return tag.RowsAffected() > 0, nil
}

package main

import (
	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres"
)

// storeGauges are the figures of st's file (bbolt) or connection pool
// (PostgreSQL), read at each scrape.
func storeGauges(st store) []metrics.Gauge {
	switch s := st.(type) {
	case *bolt.DB:
		return []metrics.Gauge{
			{Name: "bbolt_read_transactions_open", Help: "bbolt read transactions open.",
				Read: func() float64 { return float64(s.Stats().OpenTxN) }},
			{Name: "bbolt_read_transactions_total", Help: "bbolt read transactions started.", Counter: true,
				Read: func() float64 { return float64(s.Stats().TxN) }},
			{Name: "bbolt_free_pages", Help: "bbolt pages free in the file.",
				Read: func() float64 { return float64(s.Stats().FreePageN) }},
			{Name: "bbolt_write_seconds_total", Help: "Time bbolt spent writing to disk.", Counter: true,
				Read: func() float64 { st := s.Stats(); return st.TxStats.GetWriteTime().Seconds() }},
			{Name: "bbolt_writes_total", Help: "bbolt writes to disk.", Counter: true,
				Read: func() float64 { st := s.Stats(); return float64(st.TxStats.GetWrite()) }},
		}
	case *postgres.DB:
		return []metrics.Gauge{
			{Name: "postgres_pool_connections", Help: "PostgreSQL connections of the pool, in all.",
				Read: func() float64 { return float64(s.PoolStat().TotalConns()) }},
			{Name: "postgres_pool_connections_in_use", Help: "PostgreSQL connections of the pool in use.",
				Read: func() float64 { return float64(s.PoolStat().AcquiredConns()) }},
			{Name: "postgres_pool_connections_idle", Help: "PostgreSQL connections of the pool idle.",
				Read: func() float64 { return float64(s.PoolStat().IdleConns()) }},
			{Name: "postgres_pool_connections_max", Help: "PostgreSQL connections the pool may open.",
				Read: func() float64 { return float64(s.PoolStat().MaxConns()) }},
			{Name: "postgres_pool_acquires_total", Help: "Connections taken from the PostgreSQL pool.", Counter: true,
				Read: func() float64 { return float64(s.PoolStat().AcquireCount()) }},
			{Name: "postgres_pool_acquire_wait_seconds_total", Help: "Time spent waiting for a PostgreSQL connection.", Counter: true,
				Read: func() float64 { return s.PoolStat().AcquireDuration().Seconds() }},
		}
	}
	return nil
}

// mailerGauges are the SMTP pool's figures; none for the outbox folder.
func mailerGauges(m core.Mailer) []metrics.Gauge {
	s, ok := m.(*mailer.SMTP)
	if !ok {
		return nil
	}
	return []metrics.Gauge{
		{Name: "smtp_connections_open", Help: "SMTP connections open (idle and in use).",
			Read: func() float64 { return float64(s.Stats().Open()) }},
		{Name: "smtp_connections_in_use", Help: "SMTP connections sending.",
			Read: func() float64 { return float64(s.Stats().InUse) }},
		{Name: "smtp_errors_total", Help: "Sends the mail server failed (refused, timed out, unreachable).", Counter: true,
			Read: func() float64 { return float64(s.Stats().Errors) }},
	}
}

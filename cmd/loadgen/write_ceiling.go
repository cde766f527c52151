package main

// The write ceiling: what the machine allows for a create. A bare net/http
// server in a process of its own (loadgen started again with
// -write-ceiling-serve) answers POST /api/messages, after the same bearer
// check, with the bytes the real server gave for a create, having done per
// request what durability needs and nothing else: on bbolt one write of a
// record as large as all a create wrote, in a bbolt file of its own through
// the same batching (bbolt's Batch) with fsync on; on PostgreSQL one INSERT
// of as many bytes, in one round trip, into the same database. The
// write-ceiling scenario runs it and the real server alternately and
// prints each one's req/s, p99 and CPU per request, and their ratio.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.etcd.io/bbolt"
)

// writeSpec is what the bare write server does: the token it accepts, the
// reply it gives, the bytes it writes per request, and where (a PostgreSQL
// URL, or bbolt in a new temporary directory).
type writeSpec struct {
	Token    string `json:"token"`
	Reply    *reply `json:"reply"`
	Bytes    int    `json:"bytes"`
	Postgres string `json:"postgres,omitempty"`
}

// captureCreate makes one message as the load does and keeps the reply and
// the new message's id.
func captureCreate(base, token string) (*reply, string, error) {
	req, err := http.NewRequest("POST", base+"/api/messages", strings.NewReader(string(createBody)))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, "", fmt.Errorf("POST /api/messages: %d %s", resp.StatusCode, body)
	}
	var made struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &made); err != nil || made.Data.ID == "" {
		return nil, "", fmt.Errorf("no id in the create's reply: %.200s", body)
	}
	h := resp.Header.Clone()
	for _, k := range []string{"Date", "Content-Length", "X-Request-Id"} {
		h.Del(k)
	}
	return &reply{Status: resp.StatusCode, Header: h, Body: body}, made.Data.ID, nil
}

// boltBytesOf is what a create wrote into the bbolt file at path: every
// key and value, in every bucket, whose key holds the message's id (the
// record, its timeline and its index entries). The file is copied first:
// the server holds its lock.
func boltBytesOf(path, id string) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	cp := filepath.Join(os.TempDir(), fmt.Sprintf("loadgen-size-%d.db", time.Now().UnixNano()))
	if err := os.WriteFile(cp, src, 0o600); err != nil {
		return 0, err
	}
	defer os.Remove(cp)
	db, err := bbolt.Open(cp, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n := 0
	err = db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bbolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				if strings.Contains(string(k), id) {
					n += len(k) + len(v)
				}
				return nil
			})
		})
	})
	return n, err
}

// pgBytesOf is what a create wrote into PostgreSQL: the message's row and
// its timeline's rows, as stored (pg_column_size).
func pgBytesOf(p *pgStore, id string) (int, error) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, p.url)
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	var n int
	err = pool.QueryRow(ctx, `select (select coalesce(sum(pg_column_size(m.*)), 0) from messages m where id = $1) +
		(select coalesce(sum(pg_column_size(e.*)), 0) from message_events e where message_id = $1)`, id).Scan(&n)
	return n, err
}

// serveWriteCeiling is the bare write server: -write-ceiling-serve FILE.
// It prints its address, then serves until killed.
func serveWriteCeiling(file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		fatalf("write ceiling: %v", err)
	}
	var spec writeSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		fatalf("write ceiling: %v", err)
	}
	write := boltWriter(spec.Bytes)
	if spec.Postgres != "" {
		write = pgWriter(spec.Postgres, spec.Bytes)
	}
	want := []byte(spec.Token)
	rep := spec.Reply
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/messages", func(w http.ResponseWriter, r *http.Request) {
		if !bearerOK(w, r, want) {
			return
		}
		if _, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := write(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		rep.write(w)
	})
	serveBare("write ceiling", mux)
}

// newRecord is a random id and n random bytes: what one create writes.
func newRecord(n int) (id string, v []byte) {
	v = make([]byte, n)
	rand.Read(v)
	return rand.Text(), v
}

// boltWriter writes n bytes per call into a new bbolt file, as the real
// store opens it (fsync on, the map freelist), through Batch.
func boltWriter(n int) func(context.Context) error {
	dir, err := os.MkdirTemp("", "loadgen-write-ceiling-")
	if err != nil {
		fatalf("write ceiling: %v", err)
	}
	db, err := bbolt.Open(filepath.Join(dir, "ceiling.db"), 0o600, &bbolt.Options{Timeout: time.Second, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		fatalf("write ceiling: %v", err)
	}
	bucket := []byte("records")
	if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucket); return err }); err != nil {
		fatalf("write ceiling: %v", err)
	}
	return func(context.Context) error {
		id, v := newRecord(n)
		return db.Batch(func(tx *bbolt.Tx) error { return tx.Bucket(bucket).Put([]byte(id), v) })
	}
}

// pgWriter inserts n bytes per call into a table of its own, one statement
// in one round trip (autocommit).
func pgWriter(url string, n int) func(context.Context) error {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		fatalf("write ceiling: %v", err)
	}
	if _, err := pool.Exec(ctx, `create table if not exists loadgen_write_ceiling (id text primary key, v bytea not null)`); err != nil {
		fatalf("write ceiling: %v", err)
	}
	return func(ctx context.Context) error {
		id, v := newRecord(n)
		_, err := pool.Exec(ctx, `insert into loadgen_write_ceiling (id, v) values ($1, $2)`, id, v)
		return err
	}
}

// runWriteCeiling measures creates on the bare write server and on the
// real one (addrs, pids), alternately, rounds times, d each after warmup.
func runWriteCeiling(srv *servers, addrs []string, pids []int, token string, conns, rounds int, warmup, d time.Duration) {
	base := srv.list[0].url
	rep, id, err := captureCreate(base, token)
	if err != nil {
		fatalf("write ceiling: %v", err)
	}
	spec := &writeSpec{Token: token, Reply: rep}
	where := "bbolt, fsync on, through Batch"
	if srv.pg != nil {
		spec.Postgres, where = srv.pg.url, "PostgreSQL, one INSERT in one round trip"
		spec.Bytes, err = pgBytesOf(srv.pg, id)
	} else {
		spec.Bytes, err = boltBytesOf(filepath.Join(srv.dir, "replica-0", "data", "sendlater.db"), id)
	}
	if err != nil || spec.Bytes == 0 {
		fatalf("write ceiling: the size of a create: %d bytes, %v", spec.Bytes, err)
	}
	bare, err := startBare("-write-ceiling-serve", spec)
	if err != nil {
		fatalf("write ceiling: %v", err)
	}
	defer bare.stop()
	fmt.Printf("\nwrite ceiling: a bare net/http server (pid %d; per request the body read and %d bytes written: %s) and the real one, alternately, c=%d\n",
		bare.cmd.Process.Pid, spec.Bytes, where, conns)
	fmt.Printf("%-31s %5s %-7s %10s %8s %8s %8s %9s %9s\n", "write", "round", "server", "req/s", "p50 ms", "p99 ms", "CPU µs", "req/s %", "p99 ×")
	req := request("POST", "/api/messages", token, createBody)
	for round := 1; round <= rounds; round++ {
		measurePair("POST /api/messages", round, bare, addrs, pids, conns, warmup, d, req, "", "")
	}
}

package main

// The deliver scenario: messages made due at once on a PostgreSQL store
// (one import transaction), delivered by the replicas' schedulers into an
// SMTP sink that counts each recipient's copies.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/jackc/pgx/v5"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres"
	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/storetest"
	"github.com/sendlater/sendlater/store/transfer"
)

// pgStore is the replicas' store: a new schema of the given database,
// dropped at the end, and loadgen's own connection to it.
type pgStore struct {
	base, url, schema string
	key               []byte
	db                *postgres.DB
	sealer            *seal.Sealer
	owner             string
	round             int
}

func openPostgres(base string) (*pgStore, error) {
	ctx := context.Background()
	p := &pgStore{base: base, schema: "loadgen_" + strconv.FormatInt(time.Now().UnixNano(), 36), key: make([]byte, seal.KeySize)}
	rand.Read(p.key)
	if err := p.exec(ctx, "create schema "+p.schema); err != nil {
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("search_path", p.schema)
	u.RawQuery = q.Encode()
	p.url = u.String()
	if p.db, err = postgres.Open(ctx, p.url, postgres.Options{Key: p.key}); err != nil {
		return nil, err
	}
	p.sealer, _ = seal.New(p.key)
	now := time.Now()
	owner := &core.User{ID: core.NewID(), Email: "deliver@loadgen.test", CreatedAt: now, UpdatedAt: now}
	if err := p.db.CreateUser(ctx, owner); err != nil {
		return nil, err
	}
	p.owner = owner.ID
	return p, nil
}

// env is the replicas' store configuration.
func (p *pgStore) env() []string {
	return []string{"SENDLATER_STORE_DRIVER=postgres", "SENDLATER_STORE_URL=" + p.url,
		"SENDLATER_ENCRYPTION_KEY=" + hex.EncodeToString(p.key)}
}

func (p *pgStore) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, p.base)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func (p *pgStore) close() {
	p.db.Close()
	if err := p.exec(context.Background(), "drop schema "+p.schema+" cascade"); err != nil {
		log.Printf("loadgen: drop schema %s: %v", p.schema, err)
	}
}

// makeDue stores n messages due now in one transaction, to recipients
// whose addresses start with prefix.
func (p *pgStore) makeDue(prefix string, n int) error {
	recs := &transfer.Records{}
	for _, m := range storetest.DueMessages(p.owner, n, func(i int) string { return prefix + strconv.Itoa(i) + "@loadgen.test" }, time.Now()) {
		sm := p.sealer.SealMessage(m)
		recs.Messages = append(recs.Messages, &sm)
	}
	_, err := p.db.Import(context.Background(), recs)
	return err
}

// deliver makes n messages due at once and waits until every one arrived:
// the result's latencies are each first copy's arrival after the import
// committed; it also returns how many copies were duplicates.
func (ss *servers) deliver(n int) (result, int) {
	if ss.pg == nil {
		fatalf("the deliver scenario needs -postgres")
	}
	ss.pg.round++
	prefix := fmt.Sprintf("d%d-", ss.pg.round)
	ss.sink.expect(prefix)
	if err := ss.pg.makeDue(prefix, n); err != nil {
		fatalf("make %d messages due: %v", n, err)
	}
	start := time.Now()
	arrivals, dups := ss.sink.await(n, 10*time.Minute)
	res := result{n: len(arrivals)}
	for _, at := range arrivals {
		res.latencies = append(res.latencies, at.Sub(start))
	}
	slices.Sort(res.latencies)
	if len(arrivals) < n {
		res.errors = n - len(arrivals)
		res.firstError = fmt.Sprintf("%d of %d messages did not arrive within 10 minutes", n-len(arrivals), n)
	}
	if len(res.latencies) > 0 {
		res.elapsed = res.latencies[len(res.latencies)-1]
	}
	return res, dups
}

// sink is the SMTP server the replicas deliver into. It keeps when each
// expected recipient's first copy arrived, and counts the other copies.
type sink struct {
	srv    *smtp.Server
	port   int
	mu     sync.Mutex
	cond   *sync.Cond
	prefix string // of the expected recipients
	seen   map[string]bool
	got    []time.Time
	dups   int
}

func startSink() (*sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	k := &sink{port: ln.Addr().(*net.TCPAddr).Port, seen: map[string]bool{}}
	k.cond = sync.NewCond(&k.mu)
	k.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{sink: k}, nil }))
	k.srv.Domain = "localhost"
	k.srv.ErrorLog = log.New(io.Discard, "", 0) // replicas stopping cut connections
	go k.srv.Serve(ln)
	return k, nil
}

func (k *sink) close() { k.srv.Close() }

func (k *sink) received(to []string, at time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, rcpt := range to {
		if k.seen[rcpt] {
			k.dups++
			continue
		}
		k.seen[rcpt] = true
		if strings.HasPrefix(rcpt, k.prefix) {
			k.got = append(k.got, at)
		}
	}
	k.cond.Broadcast()
}

// expect starts waiting for recipients whose address starts with prefix.
func (k *sink) expect(prefix string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.prefix, k.got, k.dups = prefix, nil, 0
}

// await waits until n expected recipients received a copy, or timeout; it
// returns their first copies' arrivals and the duplicates since expect.
func (k *sink) await(n int, timeout time.Duration) ([]time.Time, int) {
	timer := time.AfterFunc(timeout, func() { k.mu.Lock(); k.cond.Broadcast(); k.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(timeout)
	k.mu.Lock()
	defer k.mu.Unlock()
	for len(k.got) < n && time.Now().Before(deadline) {
		k.cond.Wait()
	}
	return slices.Clone(k.got), k.dups
}

type sinkSession struct {
	sink *sink
	to   []string
}

func (s *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *sinkSession) Data(r io.Reader) error {
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	s.sink.received(s.to, time.Now())
	return nil
}
func (s *sinkSession) Reset()        { s.to = nil }
func (s *sinkSession) Logout() error { return nil }

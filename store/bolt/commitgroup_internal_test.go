package bolt

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

func openRaw(t *testing.T) *bbolt.DB {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(t.TempDir(), "raw.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err }); err != nil {
		t.Fatal(err)
	}
	return db
}

// waitPending waits until n calls are pending in g.
func waitPending(t *testing.T, g *commitGroup, n int) {
	t.Helper()
	for range 10_000 {
		g.mu.Lock()
		got := len(g.pending)
		g.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d calls never pending", n)
}

// put is a call writing key, which records the transaction it ran in.
func put(key string, txID *int) func(tx *bbolt.Tx) error {
	return func(tx *bbolt.Tx) error {
		*txID = tx.ID()
		return tx.Bucket([]byte("b")).Put([]byte(key), []byte("v"))
	}
}

// A call of short patience joining a group gathering for a patient one
// (a settlement beside a bounce mark) ends the gathering: both commit in
// one transaction, without the patient call's wait.
func TestCommitGroupTakesTheShortestPatience(t *testing.T) {
	db := openRaw(t)
	var g commitGroup
	patient := patience{gap: time.Hour, most: time.Hour}
	var bounceTx, settleTx int
	done := make(chan error, 1)
	go func() { done <- g.update(db, patient, put("bounce", &bounceTx)) }()
	waitPending(t, &g, 1)
	start := time.Now()
	if err := g.update(db, settlePatience, put("settle", &settleTx)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the patient call still waits a minute after the impatient one joined")
	}
	if bounceTx != settleTx {
		t.Fatalf("two commits (transactions %d and %d), one expected", bounceTx, settleTx)
	}
	t.Logf("committed together %v after the second call", time.Since(start))
}

// A call that fails gets its own error; the calls committed with it
// commit together without it.
func TestCommitGroupFailsACallAlone(t *testing.T) {
	db := openRaw(t)
	var g commitGroup
	patient := patience{gap: time.Hour, most: time.Hour}
	refused := errors.New("refused")
	var txs [3]int
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = g.update(db, patient, put("a", &txs[0])) }()
	waitPending(t, &g, 1)
	go func() {
		defer wg.Done()
		errs[1] = g.update(db, patient, func(tx *bbolt.Tx) error {
			txs[1] = tx.ID()
			tx.Bucket([]byte("b")).Put([]byte("bad"), []byte("v"))
			return refused
		})
	}()
	waitPending(t, &g, 2)
	errs[2] = g.update(db, settlePatience, put("c", &txs[2]))
	wg.Wait()
	if errs[0] != nil || errs[2] != nil || !errors.Is(errs[1], refused) {
		t.Fatalf("errors %v, want nil, refused, nil", errs)
	}
	if txs[0] != txs[2] {
		t.Fatalf("the calls that succeeded committed apart (transactions %d and %d)", txs[0], txs[2])
	}
	db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("b"))
		if b.Get([]byte("a")) == nil || b.Get([]byte("c")) == nil || b.Get([]byte("bad")) != nil {
			t.Fatal("a failed call's write committed, or a good call's did not")
		}
		return nil
	})
}

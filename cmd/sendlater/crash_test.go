package main_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/bolt"
)

// crashLease is the delivery lease of the crash test, as clusterLease is
// the cluster's: short, so that the restarted server takes over the killed
// runs' claims after seconds rather than the default 30 (the wait was most
// of the test), and still far longer than one worker takes to send its
// share of a claim, renewed every third of it while a send is in flight.
const crashLease = 5 * time.Second

// TestSendDueSurvivesSIGKILL runs `sendlater send-due` over 2,000 due
// messages of 3 recipients each and kills it with SIGKILL at random
// moments, again and again, then restarts: `sendlater serve` with its
// scheduler. Every recipient must have received every message at least
// once within 2 minutes of the restart (the killed runs' leases are
// crashLease), a duplicate must carry the same Message-ID per recipient,
// duplicates must stay within the pass's send concurrency (messages in
// flight, each with its recipients) per kill, and the store must be
// consistent.
func TestSendDueSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	const (
		total       = 2000
		recipients  = 3
		concurrency = 8
		maxKills    = 12
	)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "data", "sendlater.db")
	ids := seedDue(t, openStore(t, dir, dbPath), total, recipients)

	mail := smtptest.Start(t)
	mail.SetDelay(time.Millisecond) // sends in flight when the kill comes
	extra := smtpEnv(mail, fmt.Sprintf("SENDLATER_SCHEDULER_CONCURRENCY=%d", concurrency),
		"SENDLATER_SCHEDULER_LEASE="+crashLease.String())
	env := append(cleanEnv(), extra...)

	kills := 0
	deadline := time.Now().Add(20 * time.Second)
	for kills < maxKills && time.Now().Before(deadline) {
		cmd := exec.Command(binary, "send-due")
		cmd.Dir = dir
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-time.After(time.Duration(150+rand.IntN(600)) * time.Millisecond):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			kills++
		case err := <-done:
			if err != nil {
				t.Logf("send-due ended with %v", err)
			}
			// Nothing more to claim while the killed runs' leases hold.
			deadline = time.Now()
		}
	}
	if kills == 0 {
		t.Fatal("send-due was never killed: the test proves nothing")
	}
	sentBeforeRestart := len(mail.Messages())

	// The restart: the server's scheduler passes every second.
	restart := time.Now()
	srv := startServer(t, dir, append(extra, "SENDLATER_SCHEDULER_INTERVAL=1s")...)
	for !allReceived(mail, total*recipients) {
		if time.Since(restart) > 2*time.Minute {
			t.Fatalf("2 minutes after the restart, %d emails for %d messages of %d recipients", len(mail.Messages()), total, recipients)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(restart)
	srv.stop(t)
	db := openStore(t, dir, dbPath)
	defer db.Close()

	// Every recipient of every message delivered, received, under their
	// own stable Message-ID, and only by them.
	received := map[string]int{}
	to := map[string]string{}
	for _, msg := range mail.Messages() {
		id := strings.Trim(msg.Header.Get("Message-Id"), "<>")
		received[id]++
		if prev, ok := to[id]; ok && prev != strings.Join(msg.To, ",") {
			t.Fatalf("Message-ID %s went to %s and to %v", id, prev, msg.To)
		}
		to[id] = strings.Join(msg.To, ",")
	}
	duplicates := 0
	for _, id := range ids {
		got, err := db.FindMessageByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != core.StatusDelivered || len(got.Recipients) != recipients {
			t.Fatalf("message %s is %s with %d recipients after the final pass", id, got.Status, len(got.Recipients))
		}
		for _, r := range got.Recipients {
			n := received[r.EmailMessageID]
			if r.Status != core.RecipientSent || n == 0 || to[r.EmailMessageID] != r.Address {
				t.Fatalf("message %s to %s (%s, %s) never reached them", id, r.Address, r.EmailMessageID, r.Status)
			}
			duplicates += n - 1
			delete(received, r.EmailMessageID)
		}
	}
	if len(received) != 0 {
		t.Fatalf("%d emails carry a Message-ID of no recipient (a retry changed it?)", len(received))
	}
	if duplicates > kills*concurrency*recipients {
		t.Fatalf("%d duplicates over %d kills: more than the messages in flight (%d, of %d recipients) per kill",
			duplicates, kills, concurrency, recipients)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills; %d emails before the restart; every message received %v after it; %d duplicates",
		kills, sentBeforeRestart, took.Round(time.Millisecond), duplicates)
}

// allReceived reports whether the SMTP server holds total distinct
// Message-IDs.
func allReceived(mail *smtptest.Server, total int) bool {
	ids := map[string]bool{}
	for _, m := range mail.Messages() {
		ids[m.Header.Get("Message-Id")] = true
	}
	return len(ids) >= total
}

// seedDue stores total messages of one pro author, each to recipients
// people, all due an hour ago, and closes db.
func seedDue(t *testing.T, db *bolt.DB, total, recipients int) []string {
	t.Helper()
	defer db.Close()
	ctx := context.Background()
	created := time.Now().AddDate(0, -1, 0).Add(-time.Hour)
	u := &core.User{ID: core.NewID(), Email: "ada@example.com", Name: "Ada", StripePriceID: "plan:pro",
		StripeSubscriptionStatus: "active", CreatedAt: created, UpdatedAt: created}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, total)
	var wg sync.WaitGroup
	errs := make(chan error, total)
	for w := range 50 { // concurrent creates share commits (Batch)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < total; i += 50 {
				in := core.MessageInput{Title: fmt.Sprintf("Letter %d", i), Body: "Body of letter " + fmt.Sprint(i)}
				for r := range recipients {
					in.Recipients = append(in.Recipients, core.RecipientInput{Name: fmt.Sprintf("Reader %d", r),
						Address: fmt.Sprintf("reader%d.%d@example.com", r, i)})
				}
				m := core.NewMessage(u.ID, in, created, time.UTC)
				ids[i] = m.ID
				if err := db.CreateMessage(ctx, m, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	return ids
}

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

// TestSendDueSurvivesSIGKILL runs `sendlater send-due` over 2,000 due
// messages and kills it with SIGKILL at random moments, again and again,
// then restarts: `sendlater serve` with its scheduler. Every message must
// have reached the SMTP server at least once within 2 minutes of the
// restart (the killed runs' leases are 30 seconds), a duplicate must carry
// the same Message-ID, duplicates must stay within the pass's send
// concurrency per kill, and the store must be consistent.
func TestSendDueSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	const (
		total       = 2000
		concurrency = 8
		maxKills    = 12
	)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "data", "sendlater.db")
	ids := seedDue(t, openStore(t, dir, dbPath), total)

	mail := smtptest.Start(t)
	mail.SetDelay(time.Millisecond) // sends in flight when the kill comes
	extra := smtpEnv(mail, fmt.Sprintf("SENDLATER_SCHEDULER_CONCURRENCY=%d", concurrency))
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
	for !allReceived(mail, total) {
		if time.Since(restart) > 2*time.Minute {
			t.Fatalf("2 minutes after the restart, %d emails for %d messages", len(mail.Messages()), total)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(restart)
	srv.stop(t)
	db := openStore(t, dir, dbPath)
	defer db.Close()

	// Every message delivered, received, under its own stable Message-ID.
	received := map[string]int{}
	for _, msg := range mail.Messages() {
		received[strings.Trim(msg.Header.Get("Message-Id"), "<>")]++
	}
	duplicates := 0
	for _, id := range ids {
		got, err := db.FindMessageByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != core.StatusDelivered || got.EmailMessageID == "" {
			t.Fatalf("message %s is %s after the final pass", id, got.Status)
		}
		n := received[got.EmailMessageID]
		if n == 0 {
			t.Fatalf("message %s (%s) never reached the SMTP server", id, got.EmailMessageID)
		}
		duplicates += n - 1
		delete(received, got.EmailMessageID)
	}
	if len(received) != 0 {
		t.Fatalf("%d emails carry a Message-ID of no message (a retry changed it?)", len(received))
	}
	if duplicates > kills*concurrency {
		t.Fatalf("%d duplicates over %d kills: more than the concurrency (%d) per kill", duplicates, kills, concurrency)
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

// seedDue stores total messages of one pro author, all due an hour ago, and
// closes db.
func seedDue(t *testing.T, db *bolt.DB, total int) []string {
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
				m := core.NewMessage(u.ID, core.MessageInput{Title: fmt.Sprintf("Letter %d", i), Name: "Charles",
					Recipient: fmt.Sprintf("charles%d@example.com", i), Body: "Body of letter " + fmt.Sprint(i)}, created, time.UTC)
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

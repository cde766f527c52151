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
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/bolt"
)

// TestSendDueSurvivesSIGKILL runs `sendlater send-due` over 2,000 due
// messages and kills it with SIGKILL at random moments, again and again, then
// runs a final pass once the leases of the killed runs have expired. Every
// message must have reached the SMTP server at least once, a duplicate must
// carry the same Message-ID, duplicates must stay within the pass's send
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
	env := append(cleanEnv(), smtpEnv(mail, fmt.Sprintf("SENDLATER_SCHEDULER_CONCURRENCY=%d", concurrency))...)

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
	sentBeforeFinal := len(mail.Messages())

	// The final pass, after every lease of the killed runs has expired.
	e := testenv.New(t, testenv.Config{Path: dbPath, Key: dataKey(t, dir), SMTP: mail, Start: time.Now().Add(core.DefaultLeaseDuration + time.Minute)})
	db, d := e.DB, e.Delivery
	d.Concurrency = concurrency
	mail.SetDelay(0)
	res, err := d.Run(context.Background())
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("final pass: %v %v", err, res.Errors)
	}

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
	t.Logf("%d kills; %d emails before the final pass, which delivered %d; %d duplicates", kills, sentBeforeFinal, res.Delivered, duplicates)
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

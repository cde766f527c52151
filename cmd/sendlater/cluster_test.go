package main_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
	"github.com/sendlater/sendlater/web"
)

// The cluster: three `serve` replicas on one PostgreSQL database, each with
// its own data directory, the same key and config, and one SMTP server.

// clusterLease is the delivery lease of the cluster test: short, so that the
// claims of a killed replica are taken over quickly, and still far longer
// than one worker takes to send its share of a claim.
const clusterLease = 5 * time.Second

type cluster struct {
	t        *testing.T
	url      string
	env      []string
	dirs     []string
	replicas []*server
	mail     *smtptest.Server
}

func startCluster(t *testing.T) *cluster {
	url := pgtest.URL(t)
	mail := smtptest.Start(t)
	c := &cluster{t: t, url: url, mail: mail, env: pgEnv(url, smtpEnv(mail,
		"SENDLATER_SCHEDULER_INTERVAL=1s", "SENDLATER_SCHEDULER_LEASE="+clusterLease.String(),
		"SENDLATER_STORE_POOL_SIZE=8")...)}
	for range 3 {
		c.dirs = append(c.dirs, t.TempDir())
	}
	c.replicas = make([]*server, len(c.dirs))
	var wg sync.WaitGroup
	for i := range c.dirs {
		wg.Go(func() { c.replicas[i] = startServer(t, c.dirs[i], c.env...) })
	}
	wg.Wait()
	return c
}

// kill SIGKILLs replica i, as a crash would.
func (c *cluster) kill(i int) {
	s := c.replicas[i]
	s.cmd.Process.Kill()
	<-s.done // then stop (the test's cleanup) finds it gone
}

// restart starts replica i again in its data directory.
func (c *cluster) restart(i int) { c.replicas[i] = startServer(c.t, c.dirs[i], c.env...) }

// TestClusterOfThreeReplicas: sign-ups and messages spread over the
// replicas, a browser's live list on one sees a change made on another
// within a second, sign-out and refresh-token reuse hold on every replica,
// and /healthz and `status` on each report the cluster's delivery.
func TestClusterOfThreeReplicas(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()

	// Each replica signs up one author; each author writes a message through
	// each replica, and every replica lists all three.
	var tokens []string
	for i, r := range c.replicas {
		email := fmt.Sprintf("author%d@example.com", i)
		tokens = append(tokens, signUp(t, r.url, email).idToken)
		mustRunEnv(t, c.dirs[i], c.env, "users", "set-plan", email, "pro")
	}
	for a, token := range tokens {
		for _, r := range c.replicas {
			if _, err := web.NewAPIClient(r.url, token, 0).Create(ctx, core.MessageInput{
				Title: "From " + r.url, Name: "Grace", Recipient: fmt.Sprintf("grace%d@example.com", a), Body: "Hello.",
			}); err != nil {
				t.Fatalf("create through %s: %v", r.url, err)
			}
		}
		for _, r := range c.replicas {
			if page, err := web.NewAPIClient(r.url, token, 0).List(ctx, core.Page{}); err != nil || len(page.Messages) != 3 {
				t.Fatalf("list through %s: %v, %v", r.url, page, err)
			}
		}
	}

	// The live list on replica 0 sees what replica 1 creates and replica 2
	// deletes, each within a second.
	follow, stop := context.WithCancel(ctx)
	defer stop()
	lists, err := web.NewAPIClient(c.replicas[0].url, tokens[0], 0).Follow(follow)
	if err != nil {
		t.Fatal(err)
	}
	if first := <-lists; first.Err != nil || len(first.Messages) != 3 {
		t.Fatalf("first list: %+v", first)
	}
	m, err := web.NewAPIClient(c.replicas[1].url, tokens[0], 0).Create(ctx, core.MessageInput{
		Title: "Live", Name: "Grace", Recipient: "grace@example.com", Body: "Seen at once."})
	if err != nil {
		t.Fatal(err)
	}
	awaitList(t, lists, func(ms []*core.Message) bool {
		return slices.ContainsFunc(ms, func(x *core.Message) bool { return x.ID == m.ID })
	})
	if err := web.NewAPIClient(c.replicas[2].url, tokens[0], 0).Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	awaitList(t, lists, func(ms []*core.Message) bool {
		return !slices.ContainsFunc(ms, func(x *core.Message) bool { return x.ID == m.ID })
	})
	stop()

	// A refresh retried on another replica within the grace gets the same
	// pair; after it, the old token again ends the session on every replica.
	s := signIn(t, c.replicas[0].url, "author0@example.com")
	next := refresh(t, c.replicas[1].url, s.refresh, http.StatusOK)
	if again := refresh(t, c.replicas[2].url, s.refresh, http.StatusOK); again.refresh != next.refresh {
		t.Fatal("a retried refresh on another replica got another pair")
	}
	time.Sleep(core.RefreshGrace + 500*time.Millisecond)
	refresh(t, c.replicas[2].url, s.refresh, http.StatusUnauthorized) // the old one again: reuse
	refresh(t, c.replicas[0].url, next.refresh, http.StatusUnauthorized)
	// Signing out on one replica signs the token out on all.
	s = signIn(t, c.replicas[2].url, "author1@example.com")
	if err := web.NewAPIClient(c.replicas[2].url, s.idToken, 0).SignOut(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.replicas {
		if _, err := web.NewAPIClient(r.url, s.idToken, 0).Me(ctx); core.ErrorCode(err) != core.EInvalidToken {
			t.Fatalf("a signed-out token on %s: %v", r.url, err)
		}
	}

	// Every replica's /healthz and `status` report the three schedulers.
	for i, r := range c.replicas {
		if h := healthOf(t, r.url); h.Status != "ok" || h.Scheduler != "ok" || h.LastPass == 0 {
			t.Fatalf("healthz of replica %d: %+v", i, h)
		}
	}
	out := mustRunEnv(t, c.dirs[0], c.env, "status").stdout
	for _, r := range c.replicas {
		if !regexpContains(out, fmt.Sprintf(` serve %d\s+yes `, r.cmd.Process.Pid)) {
			t.Fatalf("status lacks replica %d:\n%s", r.cmd.Process.Pid, out)
		}
	}
}

// TestClusterDeliversWithAReplicaKilled: 2,000 messages made due at once are
// delivered by the three schedulers and two send-due runs while one replica
// is SIGKILLed at a random moment, ten times: every message arrives, and
// duplicates, all with their message's Message-ID, never exceed what the
// killed replica had in flight (scheduler.concurrency sends).
func TestClusterDeliversWithAReplicaKilled(t *testing.T) {
	const rounds, perRound, inFlight = 10, 2000, 8 // inFlight: scheduler.concurrency's default
	c := startCluster(t)
	db := openPostgres(t, c.url)
	for round := range rounds {
		c.mail.Reset()
		owner := makeDue(t, db, round, perRound)
		started := time.Now()
		var cron sync.WaitGroup
		for i := range 2 {
			cron.Go(func() {
				cmd := exec.Command(binary, "send-due")
				cmd.Dir, cmd.Env = c.dirs[i], append(cleanEnv(), c.env...)
				cmd.Run() // its outcome shows in what arrives
			})
		}
		victim := rand.IntN(len(c.replicas))
		time.Sleep(time.Duration(200+rand.IntN(1000)) * time.Millisecond)
		c.kill(victim)
		before := len(c.mail.Messages())
		awaitDeliveredOnceSent(t, db, owner, time.Minute, func() bool { return receivedAll(c.mail, round, perRound) })
		cron.Wait()
		dups := checkMailbox(t, c.mail, round, perRound)
		t.Logf("round %d: replica %d killed when %d emails had arrived; %d messages delivered in %s, %d duplicates",
			round, victim, before, perRound, time.Since(started).Round(time.Millisecond), dups)
		if dups > inFlight {
			t.Fatalf("round %d: %d duplicates, more than the %d sends the killed replica had in flight", round, dups, inFlight)
		}
		c.restart(victim)
	}
}

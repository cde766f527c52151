package web_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// Through the admin socket the audit log names the OS user of the process
// at the other end, as the kernel tells it, for the operator's routes and
// for what they do acting for a user: a change, and a read of bodies (a
// reveal).
func TestSocketAuditNamesThePeer(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	ann := e.MustUser(t, "ann@example.com", "", core.PlanStarter)
	admin, _ := serveTestSocket(t, e)
	ctx := context.Background()

	if _, err := admin.SetPlan(ctx, "ann@example.com", core.PlanPro, "active"); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(time.Second) // the log is in time order
	m, err := admin.As(ann.ID).Create(ctx, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(time.Second)
	if _, err := admin.As(ann.ID).List(ctx, core.Page{}); err != nil {
		t.Fatal(err)
	}
	log, err := admin.ListAudit(ctx, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 3 || log[0].Action != "users.set-plan" ||
		log[1].Action != "messages.create" || log[1].Target != m.ID || log[1].Detail != "created, for ann@example.com" ||
		log[2].Action != "messages.reveal" || log[2].Target != "ann@example.com" || log[2].Detail != "read a page of the list (1 messages)" {
		for _, e := range log {
			t.Logf("%+v", e)
		}
		t.Fatal("audit log")
	}
	want := web.OSUserName(uint32(os.Getuid()))
	if runtime.GOOS != "linux" {
		want = "unknown"
	}
	for _, e := range log {
		if !strings.HasPrefix(e.Actor, want) {
			t.Fatalf("actor %q, want %q (uid %s)", e.Actor, want, strconv.Itoa(os.Getuid()))
		}
	}
}

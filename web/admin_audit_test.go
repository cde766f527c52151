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
// for changes made acting for a user; reads acting for a user are not
// changes.
func TestSocketAuditNamesThePeer(t *testing.T) {
	e := testenv.New(t, testenv.Config{})
	ann := e.MustUser(t, "ann@example.com", "", core.PlanStarter)
	admin, _ := serveTestSocket(t, e)
	ctx := context.Background()

	if _, err := admin.SetPlan(ctx, "ann@example.com", core.PlanPro, "active"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.As(ann.ID).Create(ctx, core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.As(ann.ID).List(ctx, core.Page{}); err != nil {
		t.Fatal(err)
	}
	log, err := admin.ListAudit(ctx, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Action != "users.set-plan" || log[1].Action != "act-as" ||
		log[1].Target != "ann@example.com" || log[1].Detail != "POST /api/messages" {
		t.Fatalf("audit log: %+v", log)
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

package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// sendlater messages attach refuses a sealed message's file with a
// sentence that points to the apps that seal it, and makes no upload.
func TestMessagesAttachRefusesASealedMessage(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	u, ms := seedInto(t, db)
	ctx := context.Background()
	if _, err := db.UpdateUser(ctx, u.ID, func(u *core.User) error {
		u.StripePriceID, u.StripeSubscriptionStatus = core.PriceMap{}.PriceFor(core.PlanPro), "active"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	env, err := core.Seal("violet harbor quietly mends seven copper lanterns", ms[0].ID, []byte("The deeds."),
		core.SealParams{Memory: 64 * 1024, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateMessage(ctx, ms[0].ID, func(m *core.Message) error {
		m.SetSealed(core.SealedLetter{Envelope: env.String(), Hint: "Lisbon"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile(filepath.Join(dir, "will.pdf"), []byte("%PDF-1.4 the will"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, nil, "messages", "attach", ms[0].ID, "will.pdf")
	if r.code == 0 || !strings.Contains(r.stderr, "is sealed: its files must be sealed with its passphrase by the author's app") ||
		!strings.Contains(r.stderr, "the TUI's files page (f)") {
		t.Fatalf("messages attach on a sealed message: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = mustRun(t, dir, "messages", "files", ms[0].ID)
	if strings.Contains(r.stdout, "will.pdf") {
		t.Fatalf("an upload was made:\n%s", r.stdout)
	}
}

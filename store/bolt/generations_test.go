package bolt_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/storetest"
)

// A user's generation moves after every committed write of their record,
// messages or sessions (the delivery's claim and settlement included), not
// while the write's transaction runs, and not for a write that fails.
func TestUserGenerationMovesAfterEachCommittedWrite(t *testing.T) {
	db := MustOpen(t, filepath.Join(t.TempDir(), "sendlater.db"))
	u, m := seed(t, db)

	// moves runs write and checks that u's generation moved once it
	// returned, and not before (write may look inside its transaction).
	moves := func(what string, write func(inside func()) error) {
		t.Helper()
		before := db.UserGeneration(u.ID)
		inside := func() {
			if g := db.UserGeneration(u.ID); g != before {
				t.Errorf("%s: the generation moved inside the transaction (%d -> %d)", what, before, g)
			}
		}
		if err := write(inside); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if db.UserGeneration(u.ID) == before {
			t.Errorf("%s: the generation did not move", what)
		}
	}
	now := storetest.Epoch
	x := &core.Session{ID: core.NewID(), UserID: u.ID, RefreshHash: "h1", AuthTime: now, CreatedAt: now,
		LastUsedAt: now, ExpiresAt: now.Add(time.Hour)}

	moves("a new message", func(func()) error {
		n := core.NewMessage(u.ID, core.MessageInput{Title: "T", Name: "N", Recipient: "r@example.com", Body: "B"}, now, time.UTC)
		return db.CreateMessage(ctx, n, nil)
	})
	moves("a message's change", func(inside func()) error {
		_, err := db.UpdateMessage(ctx, m.ID, func(m *core.Message) error { inside(); m.Title = "Changed"; return nil })
		return err
	})
	moves("the delivery's claim", func(inside func()) error {
		_, err := db.ClaimDeliveries(ctx, m.SendDate.Add(time.Minute), 10, func(*core.Message) bool { inside(); return true })
		return err
	})
	moves("the delivery's settlement", func(inside func()) error {
		_, err := db.SettleMessage(ctx, m.ID, func(m *core.Message) ([]*core.OutboxItem, error) {
			inside()
			m.Status = core.StatusDelivered
			return nil, nil
		})
		return err
	})
	moves("a new session", func(func()) error { return db.CreateSession(ctx, x) })
	moves("a refresh", func(inside func()) error {
		_, err := db.UpdateSession(ctx, x.ID, func(x *core.Session) error { inside(); x.RefreshHash = "h2"; return nil })
		return err
	})
	moves("a sign-out", func(func()) error { return db.DeleteSession(ctx, x.ID) })
	moves("the user's sessions ended", func(func()) error {
		must(t, db.CreateSession(ctx, &core.Session{ID: core.NewID(), UserID: u.ID, RefreshHash: "h3", AuthTime: now,
			CreatedAt: now, LastUsedAt: now, ExpiresAt: now.Add(time.Hour)}))
		return db.DeleteUserSessions(ctx, u.ID, "")
	})
	moves("a profile change", func(inside func()) error {
		_, err := db.UpdateUser(ctx, u.ID, func(u *core.User) error { inside(); u.Name = "Renamed"; return nil })
		return err
	})
	moves("a message deleted", func(func()) error { return db.DeleteMessage(ctx, m.ID) })

	// A write that fails commits nothing and moves nothing.
	before := db.UserGeneration(u.ID)
	refused := errors.New("refused")
	if _, err := db.UpdateUser(ctx, u.ID, func(u *core.User) error { u.Name = "Never"; return refused }); !errors.Is(err, refused) {
		t.Fatalf("a failing update: %v", err)
	}
	if g := db.UserGeneration(u.ID); g != before {
		t.Fatalf("a rolled back write moved the generation (%d -> %d)", before, g)
	}

	moves("the account deleted", func(func()) error { return db.DeleteUser(ctx, u.ID) })
}

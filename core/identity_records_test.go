package core_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The rules every store applies through the records (identity_records.go),
// seen without a store; store/storetest's ErrorReplies holds both backends
// to their replies.

func TestActionCodeUseMarksOnceBeforeExpiry(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &core.ActionCode{Hash: "h", ExpiresAt: now.Add(time.Hour)}
	if err := c.Use(now); err != nil || !c.UsedAt.Equal(now) {
		t.Fatalf("first use: %v, UsedAt %v", err, c.UsedAt)
	}
	if err := c.Use(now.Add(time.Minute)); core.ErrorCode(err) != core.EInvalidActionCode || !c.UsedAt.Equal(now) {
		t.Fatalf("second use: %v, UsedAt %v", err, c.UsedAt)
	}
	late := &core.ActionCode{Hash: "h", ExpiresAt: now}
	if err := late.Use(now); core.ErrorCode(err) != core.EExpiredActionCode || !late.UsedAt.IsZero() {
		t.Fatalf("use at its expiry: %v, UsedAt %v", err, late.UsedAt)
	}
	forever := &core.ActionCode{Hash: "h"}
	if err := forever.Use(now.AddDate(10, 0, 0)); err != nil {
		t.Fatalf("a code with no expiry: %v", err)
	}
}

func TestAccessTokenCheckNewGivesAnID(t *testing.T) {
	tok := &core.AccessToken{Hash: "h"}
	if err := tok.CheckNew(); err != nil || len(tok.ID) != 20 {
		t.Fatalf("CheckNew: %v, id %q", err, tok.ID)
	}
	kept := &core.AccessToken{ID: "mine", Hash: "h"}
	if err := kept.CheckNew(); err != nil || kept.ID != "mine" {
		t.Fatalf("CheckNew of an id: %v, id %q", err, kept.ID)
	}
	long := &core.AccessToken{ID: strings.Repeat("x", 256), Hash: "h"}
	if err := long.CheckNew(); core.ErrorMessage(err) != "The access token id must be 1 to 255 bytes." {
		t.Fatalf("CheckNew of a long id: %v", err)
	}
	if err := (&core.AccessToken{}).CheckNew(); core.ErrorMessage(err) != "An access token needs a hash." {
		t.Fatalf("CheckNew without a hash: %v", err)
	}
}

func TestProviderLinkUpdateKeepsAccountAndUser(t *testing.T) {
	l := &core.ProviderLink{Provider: core.ProviderGitHub, Subject: "gh-ada", UserID: "ada"}
	if err := l.Update(func(l *core.ProviderLink) error { l.PendingCodeHash = ""; l.Email = "a@example.com"; return nil }); err != nil {
		t.Fatalf("a change of the email: %v", err)
	}
	for name, fn := range map[string]func(*core.ProviderLink){
		"provider": func(l *core.ProviderLink) { l.Provider = core.ProviderGoogle },
		"subject":  func(l *core.ProviderLink) { l.Subject = "gh-grace" },
		"user":     func(l *core.ProviderLink) { l.UserID = "grace" },
	} {
		l := &core.ProviderLink{Provider: core.ProviderGitHub, Subject: "gh-ada", UserID: "ada"}
		err := l.Update(func(l *core.ProviderLink) error { fn(l); return nil })
		if core.ErrorMessage(err) != "A link's provider account and user cannot change." {
			t.Errorf("a change of the %s: %v", name, err)
		}
	}
	stop := errors.New("stop")
	if err := l.Update(func(*core.ProviderLink) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("fn's error: %v", err)
	}
}

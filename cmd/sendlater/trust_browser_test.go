package main_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestTrustInABrowser drives web/ui/e2e/trust.mjs against the real binary
// and the in-process SMTP server: a Pro user adds a message with three
// recipients in the browser, previews each one's email and sends a test to
// themselves (three emails marked [Test] arrive); `messages deliver-now`
// delivers it (one email each, each its own Message-ID); the browser then
// opens the message's History from its row and sees one "sent" per
// recipient.
func TestTrustInABrowser(t *testing.T) {
	b := needBrowser(t)
	const email, password = "trust@example.com", "plum-kettle-orbit-47"
	mail, dir, env, srv := proAuthorServer(t, email, password)
	// Test emails go only to a confirmed address: the author follows the
	// verification email's link first.
	verifyFirstEmail(t, srv, mail)

	runScript := func(phase string) {
		t.Helper()
		b.run(t, srv, 3*time.Minute, "trust.mjs", email, password, phase)
	}
	runScript("create")

	var list []struct {
		ID         string `json:"id"`
		Recipients []struct {
			Recipient string `json:"recipient"`
		} `json:"recipients"`
	}
	if err := json.Unmarshal([]byte(mustRunEnv(t, dir, env, "messages", "list", "--json").stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || len(list[0].Recipients) != 3 {
		t.Fatalf("stored %+v", list)
	}
	// The verification email and the three tests, to the author, marked.
	got, err := mail.WaitFor(4, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tests := 0
	for _, m := range got {
		if strings.HasPrefix(m.Header.Get("Subject"), "[Test] ") && strings.Join(m.To, ",") == email {
			tests++
		}
	}
	if tests != 3 {
		t.Fatalf("%d test emails to the author, want one as each recipient will receive it", tests)
	}
	mustRunEnv(t, dir, env, "messages", "deliver-now", list[0].ID)
	got, err = mail.WaitFor(7, 30*time.Second) // then one each
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, m := range got {
		to := strings.Join(m.To, ",")
		if to == email {
			continue
		}
		id := m.Header.Get("Message-Id")
		if prev, dup := ids[id]; dup {
			t.Fatalf("Message-ID %s went to %s and %s", id, prev, to)
		}
		ids[id] = to
	}
	if len(ids) != 3 {
		t.Fatalf("emails to recipients: %v", ids)
	}
	runScript("history")
}

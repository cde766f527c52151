package postgres

import (
	"strings"
	"testing"
)

// A batch too long for one notification is split; only its last says so,
// and every user is in one of them.
func TestGensPayloadsMarkTheLast(t *testing.T) {
	users := make([]string, 1000)
	for i := range users {
		users[i] = strings.Repeat("u", 19) + string(rune('a'+i%26))
	}
	out := gensPayloads("writer", 7, users)
	if len(out) < 2 {
		t.Fatalf("%d notifications for 1,000 users, want several", len(out))
	}
	seen := 0
	for i, p := range out {
		f := strings.Fields(p)
		last := "0"
		if i == len(out)-1 {
			last = "1"
		}
		if len(p) > maxPayload || f[0] != "writer" || f[1] != "7" || f[2] != last {
			t.Fatalf("notification %d: %.40q (%d bytes)", i, p, len(p))
		}
		seen += len(f) - 3
	}
	if seen != len(users) {
		t.Fatalf("%d users in the notifications, want %d", seen, len(users))
	}
	if one := gensPayloads("w", 1, []string{"a", "b"}); len(one) != 1 || one[0] != "w 1 1 a b" {
		t.Fatalf("one notification: %q", one)
	}
}

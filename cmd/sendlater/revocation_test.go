package main_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// Two replicas on one PostgreSQL database: whatever ends a session on one
// of them (or in the store itself, as `users disable` does) makes the very
// next read with its token fail on both, after that token's reads warmed
// both replicas' memory of verified tokens (issue 14): sign-out, a password
// change on another device, a refresh token replayed after its grace, and
// the store ending a user's sessions.
func TestRevocationOnEveryReplica(t *testing.T) {
	// Most of the test is the sleep past core.RefreshGrace, and nothing in
	// it is timed tighter than that: it runs beside the other parallel tests.
	t.Parallel()
	url := pgtest.URL(t)
	env := pgEnv(url)
	var replicas [2]*server
	for i := range replicas {
		replicas[i] = startServer(t, t.TempDir(), env...)
	}
	db := openPostgres(t, url)
	c := &http.Client{Timeout: 10 * time.Second}
	reads := []string{"/api/me", "/api/messages"}
	status := func(r *server, path, token string) int {
		return api(t, c, "GET", r.url+path, token, nil, nil)
	}
	warm := func(token string) {
		t.Helper()
		for range 2 {
			for _, r := range replicas {
				for _, p := range reads {
					if code := status(r, p, token); code != http.StatusOK {
						t.Fatalf("GET %s on %s: %d", p, r.url, code)
					}
				}
			}
		}
	}
	revoked := func(what, token string) {
		t.Helper()
		for _, r := range replicas {
			for _, p := range reads {
				if code := status(r, p, token); code != http.StatusUnauthorized {
					t.Fatalf("after %s, GET %s on %s: %d, want 401", what, p, r.url, code)
				}
			}
		}
	}

	s := signUp(t, replicas[0].url, "out@example.com")
	warm(s.idToken)
	if code := api(t, c, "POST", replicas[1].url+"/api/auth/signout", s.idToken, nil, nil); code != http.StatusOK {
		t.Fatalf("sign-out: %d", code)
	}
	revoked("sign-out on the other replica", s.idToken)

	signUp(t, replicas[0].url, "pw@example.com")
	victim := signIn(t, replicas[0].url, "pw@example.com")
	other := signIn(t, replicas[1].url, "pw@example.com")
	warm(victim.idToken)
	if code := api(t, c, "POST", replicas[1].url+"/api/me/password", other.idToken,
		map[string]string{"password": clusterPassword + " changed"}, nil); code != http.StatusOK {
		t.Fatalf("password change: %d", code)
	}
	revoked("a password change on another device", victim.idToken)
	if code := status(replicas[0], "/api/me", other.idToken); code != http.StatusOK {
		t.Fatalf("the device that changed the password: %d", code)
	}

	first := signUp(t, replicas[0].url, "reuse@example.com")
	next := refresh(t, replicas[0].url, first.refresh, http.StatusOK)
	warm(next.idToken)
	time.Sleep(core.RefreshGrace + 500*time.Millisecond)
	refresh(t, replicas[1].url, first.refresh, http.StatusUnauthorized) // a thief's replay
	revoked("a refresh token replayed after its grace", next.idToken)

	d := signUp(t, replicas[1].url, "disabled@example.com")
	warm(d.idToken)
	u, err := db.FindUserByEmail(context.Background(), "disabled@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteUserSessions(context.Background(), u.ID, ""); err != nil {
		t.Fatal(err)
	}
	revoked("the store ended the user's sessions", d.idToken)
}

// Two replicas on one database keep each author's encoded list and
// messages (issue 14): a change made on one replica, or by another process
// in the store (as the CLI and send-due write), is in the very next read of
// the list or the message on the other.
func TestKeptListsOnEveryReplica(t *testing.T) {
	url := pgtest.URL(t)
	env := pgEnv(url)
	a, b := startServer(t, t.TempDir(), env...), startServer(t, t.TempDir(), env...)
	db := openPostgres(t, url)
	c := &http.Client{Timeout: 10 * time.Second}
	s := signUp(t, a.url, "lists@example.com")
	type item struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	list := func() []item {
		t.Helper()
		var l []item
		if code := api(t, c, "GET", b.url+"/api/messages", s.idToken, nil, &l); code != http.StatusOK {
			t.Fatalf("GET /api/messages on the other replica: %d", code)
		}
		return l
	}
	list()
	list() // kept
	var made item
	if code := api(t, c, "POST", a.url+"/api/messages", s.idToken, map[string]string{
		"title": "First", "name": "Ann", "recipient": "ann@example.com", "message": "For later.", "interval": "1M",
	}, &made); code != http.StatusCreated {
		t.Fatalf("create on one replica: %d", code)
	}
	if l := list(); len(l) != 1 || l[0].Title != "First" {
		t.Fatalf("the other replica's next list after a create: %+v", l)
	}
	message := func() (item, int) {
		t.Helper()
		var m item
		return m, api(t, c, "GET", b.url+"/api/messages/"+made.ID, s.idToken, nil, &m)
	}
	message()
	if m, code := message(); code != http.StatusOK || m.Title != "First" { // kept
		t.Fatalf("the other replica's message: %d %+v", code, m)
	}
	list() // kept again
	if _, err := db.UpdateMessage(context.Background(), made.ID, func(m *core.Message) error {
		m.Title = "Renamed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if l := list(); len(l) != 1 || l[0].Title != "Renamed" {
		t.Fatalf("the replica's next list after another process wrote the store: %+v", l)
	}
	if m, code := message(); code != http.StatusOK || m.Title != "Renamed" {
		t.Fatalf("the replica's next read of the message after another process wrote the store: %d %+v", code, m)
	}
	if code := api(t, c, "DELETE", a.url+"/api/messages/"+made.ID, s.idToken, nil, nil); code != http.StatusOK {
		t.Fatalf("delete on one replica: %d", code)
	}
	if l := list(); len(l) != 0 {
		t.Fatalf("the other replica's next list after a delete: %+v", l)
	}
	if _, code := message(); code != http.StatusNotFound {
		t.Fatalf("the other replica's next read of the deleted message: %d", code)
	}

	// /api/me's reply is kept likewise: a profile change on one replica, a
	// write of the store, a message added (which turns canAddMessage on
	// the free plan) show in the other's very next read.
	type me struct {
		Name          string `json:"name"`
		CanAddMessage bool   `json:"canAddMessage"`
	}
	read := func() me {
		t.Helper()
		var m me
		if code := api(t, c, "GET", b.url+"/api/me", s.idToken, nil, &m); code != http.StatusOK {
			t.Fatalf("GET /api/me on the other replica: %d", code)
		}
		return m
	}
	read()
	if m := read(); !m.CanAddMessage { // kept
		t.Fatalf("the other replica's /api/me: %+v", m)
	}
	if code := api(t, c, "PATCH", a.url+"/api/me", s.idToken, map[string]string{"name": "Ann Other"}, nil); code != http.StatusOK {
		t.Fatalf("PATCH /api/me on one replica: %d", code)
	}
	if m := read(); m.Name != "Ann Other" {
		t.Fatalf("the other replica's next /api/me after a profile change: %+v", m)
	}
	read() // kept again
	u, err := db.FindUserByEmail(context.Background(), "lists@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateUser(context.Background(), u.ID, func(u *core.User) error {
		u.Name = "Ann Store"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Name != "Ann Store" {
		t.Fatalf("the replica's next /api/me after another process wrote the store: %+v", m)
	}
	if code := api(t, c, "POST", a.url+"/api/messages", s.idToken, map[string]string{
		"title": "Second", "name": "Ann", "recipient": "ann@example.com", "message": "For later.", "interval": "1M",
	}, nil); code != http.StatusCreated {
		t.Fatalf("create on one replica: %d", code)
	}
	if m := read(); m.CanAddMessage {
		t.Fatalf("the other replica's next /api/me after a create on the free plan: %+v", m)
	}
}

package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

// scriptVars seeds dir's store (Ada's two messages and a contact
// submission) and returns the admin script's variables.
func scriptVars(t *testing.T, dir string) map[string]string {
	t.Helper()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	defer db.Close()
	return seedScript(t, db)
}

// seedScript seeds st for the admin script and returns its variables.
func seedScript(t *testing.T, st interface {
	core.UserStore
	core.MessageStore
	core.ContactStore
}) map[string]string {
	t.Helper()
	_, ms := seedInto(t, st)
	err := st.CreateContact(context.Background(), &core.ContactSubmission{Name: "Grace", Email: "grace@example.com",
		Message: "Please call me back about my letter.", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"MSG1": ms[0].ID, "MSG2": ms[1].ID, "UID": strconv.Itoa(os.Getuid())}
}

// On PostgreSQL every command talks to the database itself.
func TestAdminScriptOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	vars := seedScript(t, openPostgres(t, url))
	runScript(t, "admin.txt", t.TempDir(), pgEnv(url), vars)
}

func TestAdminScriptWithoutAServer(t *testing.T) {
	dir := t.TempDir()
	runScript(t, "admin.txt", dir, nil, scriptVars(t, dir))
}

func TestAdminScriptThroughTheRunningServer(t *testing.T) {
	dir := t.TempDir()
	vars := scriptVars(t, dir)
	startServer(t, dir)
	r := mustRun(t, dir, "users", "list", "--verbose")
	if !strings.Contains(r.stderr, "admin socket") {
		t.Fatalf("not through the server: %s", r.stderr)
	}
	runScript(t, "admin.txt", dir, nil, vars)
}

// A disabled user cannot sign in, the ID token and the refresh cookie they
// held stop at once; enabled, they sign in again.
func TestDisabledUserIsSignedOutAndRefused(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	r := runWithStdin(t, dir, nil, clusterPassword+"\n", "users", "create", "erin@example.com", "--password-stdin")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	s := signIn(t, srv.url, "erin@example.com")
	if code := getMe(t, srv, s.idToken); code != http.StatusOK {
		t.Fatalf("GET /api/me before: %d", code)
	}
	mustRun(t, dir, "users", "disable", "erin@example.com")
	if code := getMe(t, srv, s.idToken); code != http.StatusUnauthorized {
		t.Fatalf("GET /api/me after disable: %d, want 401", code)
	}
	refresh(t, srv.url, s.refresh, http.StatusUnauthorized)
	creds := map[string]string{"email": "erin@example.com", "password": clusterPassword}
	if code, _ := authCall(t, srv.url, "/api/auth/signin", creds, ""); code != http.StatusForbidden {
		t.Fatalf("sign-in while disabled: %d, want 403", code)
	}
	mustRun(t, dir, "users", "enable", "erin@example.com")
	signIn(t, srv.url, "erin@example.com")
}

func getMe(t *testing.T, srv *server, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.url+"/api/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// send-due exits 1 when it cannot run a pass at all: here the store is
// held by a process that answers on no admin socket.
func TestSendDueFailsWhenTheStoreCannotBeOpened(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir, filepath.Join(dir, "data", "sendlater.db"))
	defer db.Close()
	r := run(t, dir, nil, "send-due")
	if r.code != 1 || !strings.Contains(r.stderr, "Error:") {
		t.Fatalf("send-due on a store held elsewhere: %+v", r)
	}
}

// The link users create prints lets the user choose a password, then sign in.
func TestCreatedUserChoosesAPasswordWithTheLink(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	r := mustRun(t, dir, "users", "create", "fay@example.com", "--json")
	var created struct{ Link string }
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil || created.Link == "" {
		t.Fatalf("users create --json: %s", r.stdout)
	}
	link, err := url.Parse(created.Link)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]string{"oobCode": link.Query().Get("oobCode"), "password": clusterPassword}
	if code, _ := authCall(t, srv.url, "/api/auth/password-reset/confirm", body, ""); code != http.StatusOK {
		t.Fatalf("choosing the password with the link: %d", code)
	}
	signIn(t, srv.url, "fay@example.com")
	if code, _ := authCall(t, srv.url, "/api/auth/password-reset/confirm", body, ""); code == http.StatusOK {
		t.Fatal("the link worked twice")
	}
}

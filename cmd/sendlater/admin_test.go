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
	t.Parallel() // a script is a minute of commands that mostly wait
	url := pgtest.URL(t)
	vars := seedScript(t, openPostgres(t, url))
	runScript(t, "admin.txt", t.TempDir(), pgEnv(url), vars)
}

func TestAdminScriptWithoutAServer(t *testing.T) {
	t.Parallel() // a script is a minute of commands that mostly wait
	dir := t.TempDir()
	runScript(t, "admin.txt", dir, nil, scriptVars(t, dir))
}

func TestAdminScriptThroughTheRunningServer(t *testing.T) {
	t.Parallel() // a script is a minute of commands that mostly wait
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

// users export prints the user's own export (GET /api/me/export), the same
// through the running server and on the store directly.
func TestUsersExportIsTheUsersOwn(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	if r := runWithStdin(t, dir, nil, clusterPassword+"\n", "users", "create", "gus@example.com", "--password-stdin"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	s := signIn(t, srv.url, "gus@example.com")
	msg := `{"title":"For Hal","name":"Hal","recipient":"hal@example.com","message":"The spare key is in the shed.","interval":"6M"}`
	if code := apiCall(t, srv, "POST", "/api/messages", s.idToken, msg, nil); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	var own struct{ Data map[string]any }
	if code := apiCall(t, srv, "GET", "/api/me/export", s.idToken, "", &own); code != http.StatusOK {
		t.Fatalf("GET /api/me/export: %d", code)
	}
	viaSocket := exported(t, mustRun(t, dir, "users", "export", "gus@example.com").stdout)
	srv.stop(t)
	direct := exported(t, mustRun(t, dir, "users", "export", "gus@example.com").stdout)
	delete(own.Data, "exportedAt")
	want, _ := json.Marshal(own.Data)
	for how, got := range map[string]string{"through the server": viaSocket, "on the store": direct} {
		if got != string(want) {
			t.Errorf("users export %s:\n%s\nwant the user's own:\n%s", how, got, want)
		}
	}
}

// exported is an export without its time, as canonical JSON.
func exported(t *testing.T, s string) string {
	t.Helper()
	var x map[string]any
	if err := json.Unmarshal([]byte(s), &x); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	delete(x, "exportedAt")
	b, _ := json.Marshal(x)
	return string(b)
}

// apiCall makes an API request with a bearer token and decodes the reply
// into out (when given); it returns the status.
func apiCall(t *testing.T, srv *server, method, path, token, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, srv.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

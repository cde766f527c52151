package web_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// getOver reads path over a real connection, taking gzip or not, and
// checks what a client checks of the reply's headers: its Content-Length is
// the length of the bytes that came, and its ETag the tag of the
// (unzipped) body. It returns the status and the unzipped body.
func getOver(t *testing.T, c *http.Client, url, token string, gz bool) (int, string, error) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	if n := resp.Header.Get("Content-Length"); resp.StatusCode == http.StatusOK && n != strconv.Itoa(len(raw)) {
		return 0, "", fmt.Errorf("GET %s: Content-Length %s for %d bytes", url, n, len(raw))
	}
	body := raw
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return 0, "", err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return 0, "", err
		}
	}
	if resp.StatusCode == http.StatusOK {
		sum := sha256.Sum256(body)
		if tag := `W/"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`; resp.Header.Get("ETag") != tag {
			return 0, "", fmt.Errorf("GET %s: ETag %s, the body's is %s", url, resp.Header.Get("ETag"), tag)
		}
	}
	return resp.StatusCode, string(body), nil
}

// A kept reply keeps its ETag and Content-Length beside its bytes (plain
// and gzipped): while writes that change the reply's length race reads
// over real connections, every reply's headers are its own body's, and
// after each write the next read, plain or gzipped, is the new reply. On
// both backends (PostgreSQL serving generations, as serve does).
func TestKeptHeadersAreTheirBodys(t *testing.T) {
	testenv.Backends(t, testenv.Config{Start: time.Now()}, func(t *testing.T, e *testenv.Env) {
		if g, ok := e.Store.(core.GenerationServer); ok {
			g.ServeGenerations()
		}
		s := &web.Server{
			Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
			Identities: e.Auth, Messages: e.Messages, Contact: e.Contact,
			Postpone: e.Postpone, Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social,
			StreamHeartbeat: testHeartbeat, Generations: e.Store.(core.UserGenerations),
		}
		srv := httptest.NewServer(s.Handler())
		defer srv.Close()
		c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		tok, err := e.Auth.SignUp(e.Ctx, core.SignUpInput{Email: "ann@example.com", Password: pw}, core.Client{})
		must(t, err)
		long := strings.Repeat("A letter long enough to be worth compressing. ", 60)
		m, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{
			Title: "v0", Name: "Cy", Recipient: "cy@example.com", Body: long, Interval: core.Interval1M,
		})
		must(t, err)
		urls := []string{srv.URL + "/api/messages", srv.URL + "/api/messages/" + m.ID}

		stop := make(chan struct{})
		errs := make(chan error, 4)
		var wg sync.WaitGroup
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					if _, _, err := getOver(t, c, urls[n%2], tok.IDToken, (n+g)%3 == 0); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for i := 1; i <= 30 && len(errs) == 0; i++ {
			title := "v" + strings.Repeat("x", i*7%23) // each write changes the reply's length
			if i%2 == 0 {
				_, err = e.Messages.Update(e.As(tok.User.ID), m.ID, core.MessageUpdate{Title: &title})
			} else { // a write of the store itself, as the CLI or another process makes
				_, err = e.Store.UpdateMessage(e.Ctx, m.ID, func(m *core.Message) error {
					m.Title = title
					return nil
				})
			}
			must(t, err)
			for _, u := range urls {
				for _, gz := range []bool{false, true} {
					code, body, err := getOver(t, c, u, tok.IDToken, gz)
					must(t, err)
					if code != http.StatusOK || !strings.Contains(body, `"title":"`+title+`"`) {
						t.Fatalf("after write %d, GET %s (gzip %v) is stale: %d %.200s", i, u, gz, code, body)
					}
				}
			}
		}
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}

package web_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/mailer/smtptest"
	"github.com/sendlater/sendlater/web"
)

// fileLinkPattern finds the recipients' file links in an email (the
// format docs/api.md gives: one link a file, alone on its line in the
// text part).
var fileLinkPattern = regexp.MustCompile(regexp.QuoteMeta(identityBaseURL) + `/files/([A-Za-z0-9]+\.[A-Za-z0-9_-]+)`)

// fileLinkAPI is the public server over e with the recipients' file links,
// as serve wires it.
func fileLinkAPI(t *testing.T, e *testenv.Env) *identityAPI {
	t.Helper()
	s := &web.Server{
		Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
		Identities: e.Auth, Messages: e.Messages, Contact: e.Contact,
		Postpone: e.Postpone, Refusals: e.Refuse, WebhookSecrets: e.WebhookSecrets, Social: e.Social,
		StreamHeartbeat: testHeartbeat, Drafts: e.Drafts, Attachments: e.Attachments, FileLinks: e.Graph.FileLinks,
	}
	if err := s.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return &identityAPI{Env: e, t: t, srv: s, logs: &lockedBuffer{}}
}

// attachFile uploads data as name to the message mid of uid, part after
// part, through the service.
func attachFile(t *testing.T, e *testenv.Env, uid, mid, name string, data []byte) *core.Attachment {
	t.Helper()
	ctx := e.As(uid)
	a, err := e.Attachments.Create(ctx, mid, name, int64(len(data)))
	must(t, err)
	for off := int64(0); ; off += a.PartSize {
		end := min(off+a.PartSize, int64(len(data)))
		if a, err = e.Attachments.Upload(ctx, mid, a.ID, off, bytes.NewReader(data[off:end])); err != nil {
			t.Fatal(err)
		}
		if a.State == core.AttachmentComplete {
			return a
		}
	}
}

// deliveredTo runs the delivery pass at m's time and returns the delivery
// email each address received (the reminders before it are skipped).
func deliveredTo(t *testing.T, e *testenv.Env, m *core.Message, addresses ...string) map[string]*smtptest.Parsed {
	t.Helper()
	out := deliveriesWithSubject(t, e, m, "A message from")
	for _, a := range addresses {
		if out[a] == nil {
			t.Fatalf("no delivery email to %s", a)
		}
	}
	return out
}

// fetch GETs url with the headers (name, value, ...) and returns the reply
// and its body.
func fetch(t *testing.T, url string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	must(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultTransport.RoundTrip(req) // as sent: no gzip asked for by the client itself
	must(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(t, err)
	return res, b
}

// authorToken is a personal access token of uid, to call the API as them.
func authorToken(t *testing.T, e *testenv.Env, uid string) string {
	t.Helper()
	_, secret, err := e.Auth.CreateAccessToken(e.Acting(&core.Identity{UserID: uid, SessionID: "test", AuthTime: e.Clock.Now()}), "test", []string{core.ScopeMessagesRead})
	must(t, err)
	return secret
}

func randomFile(n int, head string) []byte {
	b := make([]byte, n)
	rand.Read(b)
	copy(b, head)
	return b
}

// A delivered message's files reach each recipient by links of their own:
// the email lists them (name, size, the executable mark) in both parts;
// a link downloads the bytes over HTTP, by ranges too, with the download's
// safety headers and never gzipped; the first download goes on the
// author's timeline once, later ones are counted; a forged token, one
// recipient's token moved onto another file, a link past its validity and
// a deleted message's are refused, with a page for a browser.
func TestFileLinksDeliverTheFiles(t *testing.T) {
	const validity = 30 * 24 * time.Hour
	testenv.Backends(t, testenv.Config{BaseURL: identityBaseURL, Start: testenv.DefaultStart, FileLinkValidity: validity},
		func(t *testing.T, e *testenv.Env) {
			a := fileLinkAPI(t, e)
			u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
			m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Papers", Body: "The papers are attached.",
				Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Bob", Address: "bob@example.com"}}})
			must(t, err)
			will := randomFile(300_000, "%PDF-1.7\n")
			script := []byte("#!/bin/sh\necho hello\n")
			fw := attachFile(t, e, u.ID, m.ID, "will.pdf", will)
			fs := attachFile(t, e, u.ID, m.ID, "run.sh", script)
			// An upload under way is not part of the message yet.
			if _, err := e.Attachments.Create(e.As(u.ID), m.ID, "later.txt", 10); err != nil {
				t.Fatal(err)
			}

			mails := deliveredTo(t, e, m, "ann@example.com", "bob@example.com")
			links := map[string][]string{} // address -> tokens, in the files' order
			for addr, p := range mails {
				if !strings.Contains(p.Text, "Ada Lovelace left you 2 files. Each link is yours and downloads for 30 days:") ||
					!strings.Contains(p.Text, "will.pdf (300 KB)\n") || !strings.Contains(p.Text, "run.sh (21 bytes; a program: open it only if you trust it)\n") ||
					!strings.Contains(p.HTML, ">will.pdf</a>") || strings.Contains(p.Text+p.HTML, "later.txt") || len(p.Attachments) != 0 {
					t.Fatalf("the email to %s:\n%s\n%s", addr, p.Text, p.HTML)
				}
				text := fileLinkPattern.FindAllStringSubmatch(p.Text, -1)
				html := fileLinkPattern.FindAllStringSubmatch(p.HTML, -1)
				if len(text) != 2 || len(html) != 2 || text[0][1] != html[0][1] || text[1][1] != html[1][1] {
					t.Fatalf("the links to %s: %v %v", addr, text, html)
				}
				if strings.HasPrefix(text[0][1], fs.ID+".") { // the files made in one instant go in their ids' order
					text[0], text[1] = text[1], text[0]
				}
				if !strings.HasPrefix(text[0][1], fw.ID+".") || !strings.HasPrefix(text[1][1], fs.ID+".") {
					t.Fatalf("the links to %s are not the files': %v", addr, text)
				}
				if !strings.Contains(p.Text, "\n"+identityBaseURL+"/files/"+text[0][1]+"\n") {
					t.Fatalf("a link is not alone on its line:\n%s", p.Text)
				}
				links[addr] = []string{text[0][1], text[1][1]}
			}
			ann, bob := links["ann@example.com"], links["bob@example.com"]
			if ann[0] == bob[0] {
				t.Fatal("two recipients got the same link")
			}
			base := a.srv.URL() + "/files/"

			// The bytes, whole and by a range, as a download.
			res, body := fetch(t, base+ann[0], "Accept-Encoding", "gzip")
			if res.StatusCode != http.StatusOK || !bytes.Equal(body, will) || res.Header.Get("Content-Type") != "application/pdf" ||
				!strings.HasPrefix(res.Header.Get("Content-Disposition"), `attachment; filename="will.pdf"`) ||
				res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Content-Encoding") != "" ||
				res.Header.Get("Content-Security-Policy") != "default-src 'none'; sandbox" || res.Header.Get("Cache-Control") != "private, no-store" {
				t.Fatalf("ann's download: %d %v (%d bytes)", res.StatusCode, res.Header, len(body))
			}
			res, body = fetch(t, base+ann[0], "Range", "bytes=70000-140000")
			if res.StatusCode != http.StatusPartialContent || !bytes.Equal(body, will[70000:140001]) {
				t.Fatalf("a range: %d, %d bytes", res.StatusCode, len(body))
			}
			res, body = fetch(t, base+bob[1])
			if res.StatusCode != http.StatusOK || !bytes.Equal(body, script) || res.Header.Get("Content-Type") != "application/octet-stream" {
				t.Fatalf("bob's script: %d %v", res.StatusCode, res.Header)
			}
			fetch(t, base+ann[0]) // a second whole download

			// Refused: a forged token, a token moved onto another file
			// (bob's of the script onto the will, ann's onto the script).
			_, mac, _ := strings.Cut(bob[1], ".")
			_, annMac, _ := strings.Cut(ann[0], ".")
			for _, token := range []string{fw.ID + ".AAAAAAAAAAAAAAAAAAAAAA", fw.ID + "." + mac, fs.ID + "." + annMac, "nope", fw.ID + ".", fw.ID + ".test"} {
				res, body := fetch(t, base+token)
				want := http.StatusNotFound
				if strings.HasSuffix(token, ".test") {
					want = http.StatusUnauthorized // a test link, without the author's session
				}
				if res.StatusCode != want || bytes.Contains(body, will[:64]) || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
					t.Fatalf("%s: %d %s", token, res.StatusCode, body)
				}
			}
			// A browser gets a page that says it.
			res, body = fetch(t, base+fw.ID+".AAAAAAAAAAAAAAAAAAAAAA", "Accept", "text/html,*/*")
			if res.StatusCode != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
				!strings.Contains(string(body), "<h1>File not found</h1>") {
				t.Fatalf("the page of a forged link: %d %s", res.StatusCode, body)
			}

			// The timeline: one event a recipient and file, the counts
			// kept with the file (a range after the start counts nothing).
			evs, err := e.Messages.Events(e.As(u.ID), m.ID)
			must(t, err)
			var downloaded []string
			for _, ev := range evs {
				if ev.Kind == core.EventDownloaded {
					downloaded = append(downloaded, ev.Recipient+" "+ev.Detail)
				}
			}
			if strings.Join(downloaded, ",") != "ann@example.com will.pdf,bob@example.com run.sh" {
				t.Fatalf("downloaded events: %v", downloaded)
			}
			counts, err := e.Store.AttachmentDownloads(e.Ctx, fw.ID)
			must(t, err)
			if len(counts) != 1 || counts[0].Recipient != 0 || counts[0].Count != 2 {
				t.Fatalf("the will's downloads: %+v", counts)
			}
			// The author's list of the files says them.
			var list []web.FileJSON
			a.ok(nil, http.StatusOK, "GET", "/api/messages/"+m.ID+"/files", authorToken(t, e, u.ID), nil, &list)
			for _, f := range list {
				want := map[string]string{fw.ID: "ann@example.com 2", fs.ID: "bob@example.com 1"}[f.ID]
				got := ""
				for _, d := range f.Downloads {
					got += fmt.Sprintf("%s %d", d.Recipient, d.Count)
					if d.FirstAt == 0 || d.LastAt < d.FirstAt {
						t.Fatalf("the times of %+v", d)
					}
				}
				if got != want {
					t.Fatalf("the list says %q of %s, want %q", got, f.Name, want)
				}
			}

			// Past its validity a link is gone (410), with the period named.
			e.Clock.Add(validity + time.Hour)
			res, body = fetch(t, base+ann[0])
			if res.StatusCode != http.StatusGone || !strings.Contains(string(body), core.EFileLinkExpired) ||
				!strings.Contains(string(body), "30 days after the message arrived") {
				t.Fatalf("an expired link: %d %s", res.StatusCode, body)
			}
			res, body = fetch(t, base+ann[0], "Accept", "text/html")
			if res.StatusCode != http.StatusGone || !strings.Contains(string(body), "This link has expired") {
				t.Fatalf("an expired link's page: %d %s", res.StatusCode, body)
			}
			// A deleted message's links download nothing.
			e.Clock.Add(-validity)
			if res, _ := fetch(t, base+bob[0]); res.StatusCode != http.StatusOK {
				t.Fatalf("bob's link before the delete: %d", res.StatusCode)
			}
			must(t, e.Messages.Delete(e.As(u.ID), m.ID))
			if res, body := fetch(t, base+bob[0]); res.StatusCode != http.StatusNotFound || bytes.Contains(body, will[:64]) {
				t.Fatalf("a deleted message's link: %d %s", res.StatusCode, body)
			}
		})
}

// attachments.inline_max: when a message's files total at most it, each
// email also carries them, opened, with their sniffed type (never an
// executable), and still links them; a message over it carries none.
func TestFileLinksInlineMax(t *testing.T) {
	testenv.Backends(t, testenv.Config{BaseURL: identityBaseURL, Start: testenv.DefaultStart, InlineMax: 1000},
		func(t *testing.T, e *testenv.Env) {
			u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
			small, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Small", Name: "Ann", Recipient: "ann@example.com", Body: "Two small files."})
			must(t, err)
			large, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "Large", Name: "Bob", Recipient: "bob@example.com", Body: "A larger file."})
			must(t, err)
			note := []byte("The key is under the blue pot.\n")
			attachFile(t, e, u.ID, small.ID, "note.txt", note)
			attachFile(t, e, u.ID, small.ID, "run.sh", []byte("#!/bin/sh\necho hello\n"))
			attachFile(t, e, u.ID, large.ID, "photo.jpg", randomFile(1001, "\xff\xd8\xff"))

			mails := deliveredTo(t, e, small, "ann@example.com", "bob@example.com")
			ann, bob := mails["ann@example.com"], mails["bob@example.com"]
			if len(ann.Attachments) != 1 || ann.Attachments[0].Name != "note.txt" || ann.Attachments[0].Type != "text/plain" ||
				!bytes.Equal(ann.Attachments[0].Data, note) {
				t.Fatalf("ann's email carries %+v", ann.Attachments)
			}
			if len(fileLinkPattern.FindAllString(ann.Text, -1)) != 2 || strings.Contains(ann.Text, "The key is under") {
				t.Fatalf("ann's email does not link both files, or shows the attachment as text:\n%s", ann.Text)
			}
			if len(bob.Attachments) != 0 || len(fileLinkPattern.FindAllString(bob.Text, -1)) != 1 {
				t.Fatalf("bob's email (1001 bytes of files) carries %d files:\n%s", len(bob.Attachments), bob.Text)
			}
		})
}

// A preview and a test email list the files with test links, which
// download only for the author with their session (a bearer token): a
// click in the test email gets a page that says so, another user nothing;
// the author's download counts as no recipient's.
func TestFileLinksOfATestSendAreTheAuthors(t *testing.T) {
	testenv.Backends(t, testenv.Config{BaseURL: identityBaseURL, Start: testenv.DefaultStart},
		func(t *testing.T, e *testenv.Env) {
			a := fileLinkAPI(t, e)
			ada, uid := proSignedUp(t, e, "ada@example.com")
			e.MustVerify(t, uid)
			bob, _ := proSignedUp(t, e, "bob@example.com")
			var m web.MessageJSON
			a.ok(nil, http.StatusCreated, "POST", "/api/messages", ada,
				map[string]string{"title": "Papers", "name": "Ann", "recipient": "ann@example.com", "message": "See the file."}, &m)
			will := randomFile(5000, "%PDF-1.7\n")
			f := attachFile(t, e, uid, m.ID, "will.pdf", will)
			testLink := identityBaseURL + "/files/" + f.ID + ".test"

			var previews []web.EmailPreviewJSON
			a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/preview", ada, map[string]any{}, &previews)
			if len(previews) != 1 || !strings.Contains(previews[0].Text, "will.pdf (5 KB)") || !strings.Contains(previews[0].Text, testLink) ||
				!strings.Contains(previews[0].HTML, `href="`+testLink+`"`) {
				t.Fatalf("the preview: %+v", previews)
			}
			var sent web.TestSendJSON
			a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/test", ada, nil, &sent)
			e.Mailbox.Flush()
			var mail *smtptest.Parsed
			for _, msg := range e.SMTP.Messages() {
				if p, err := msg.Parse(); err == nil && strings.HasPrefix(p.Subject, core.TestSubjectPrefix) {
					mail = p
				}
			}
			if mail == nil || !strings.Contains(mail.Text, testLink) || fileLinkPattern.FindAllString(mail.Text, -1)[0] != testLink {
				t.Fatalf("the test email: %+v", mail)
			}

			url := a.srv.URL() + "/files/" + f.ID + ".test"
			res, body := fetch(t, url)
			if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), core.EFileTestLink) {
				t.Fatalf("a test link without a session: %d %s", res.StatusCode, body)
			}
			res, body = fetch(t, url, "Accept", "text/html")
			if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "A test email&#39;s link") ||
				!strings.Contains(string(body), `href="/dashboard"`) {
				t.Fatalf("a test link's page: %d %s", res.StatusCode, body)
			}
			if res, body := fetch(t, url, "Authorization", "Bearer "+bob); res.StatusCode != http.StatusNotFound || bytes.Contains(body, will[:64]) {
				t.Fatalf("a test link with another user's session: %d", res.StatusCode)
			}
			res, body = fetch(t, url, "Authorization", "Bearer "+ada)
			if res.StatusCode != http.StatusOK || !bytes.Equal(body, will) {
				t.Fatalf("a test link with the author's session: %d (%d bytes)", res.StatusCode, len(body))
			}
			counts, err := e.Store.AttachmentDownloads(e.Ctx, f.ID)
			if err != nil || len(counts) != 0 {
				t.Fatalf("the author's download was counted: %+v %v", counts, err)
			}
		})
}

// A link is limited like the sealed open links: past 120 requests an hour
// on one token, 429 with Retry-After, whatever the token.
func TestFileLinksAreRateLimited(t *testing.T) {
	e := testenv.New(t, testenv.Config{BaseURL: identityBaseURL, Start: testenv.DefaultStart})
	a := fileLinkAPI(t, e)
	url := a.srv.URL() + "/files/AAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA"
	for i := range core.LimitFileToken.Max {
		if res, _ := fetch(t, url); res.StatusCode != http.StatusNotFound {
			t.Fatalf("request %d: %d", i+1, res.StatusCode)
		}
	}
	res, body := fetch(t, url, "Accept", "text/html")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body), "Please try again later") {
		t.Fatalf("past the limit: %d %v %s", res.StatusCode, res.Header, body)
	}
	e.Clock.Add(time.Hour + time.Minute)
	if res, _ := fetch(t, url); res.StatusCode != http.StatusNotFound {
		t.Fatalf("an hour later: %d", res.StatusCode)
	}
}

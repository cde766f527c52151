package web_test

import (
	"bytes"
	"context"
	"encoding/json"
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

var sealedOpenLink = regexp.MustCompile(regexp.QuoteMeta(identityBaseURL) + `/open/([A-Za-z0-9]+\.[A-Za-z0-9_-]+)`)

// sealedDeliveries runs the delivery pass at m's time and returns the
// sealed delivery email each address received.
func sealedDeliveries(t *testing.T, e *testenv.Env, m *core.Message) map[string]*smtptest.Parsed {
	t.Helper()
	return deliveriesWithSubject(t, e, m, "A sealed message from")
}

// deliveriesWithSubject runs the delivery pass at m's time and returns,
// by address, each email of one recipient whose subject begins with
// prefix (the reminders before it are skipped), its text with bare
// line ends.
func deliveriesWithSubject(t *testing.T, e *testenv.Env, m *core.Message, prefix string) map[string]*smtptest.Parsed {
	t.Helper()
	e.Clock.Set(m.SendDate.Add(time.Minute))
	if _, err := e.Delivery.Run(e.Ctx); err != nil {
		t.Fatal(err)
	}
	out := map[string]*smtptest.Parsed{}
	for _, msg := range e.SMTP.Messages() {
		p, err := msg.Parse()
		must(t, err)
		if strings.HasPrefix(p.Subject, prefix) && len(msg.To) == 1 {
			p.Text = strings.ReplaceAll(p.Text, "\r\n", "\n")
			out[msg.To[0]] = p
		}
	}
	return out
}

type openReply struct {
	Data struct {
		MessageID string `json:"messageId"`
		Files     []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			Size int64  `json:"size"`
			URL  string `json:"url"`
		} `json:"files"`
	} `json:"data"`
}

// A sealed message's files, delivered for real over the test SMTP server:
// each email lists them by name and opened size and says they open on the
// message's page with the same passphrase, with no file link and no file
// carried (inline_max allows it); the recipient's open link's reply lists
// the complete files (not an upload under way) with their sealed size and
// the recipient's own link, which downloads the sealed bytes the
// passphrase opens.
func TestSealedFilesAreOpenedOnTheOpenPage(t *testing.T) {
	testenv.Backends(t, testenv.Config{BaseURL: identityBaseURL, Start: testenv.DefaultStart, InlineMax: 10_000_000}, func(t *testing.T, e *testenv.Env) {
		s := &web.Server{
			Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
			Identities: e.Auth, Messages: e.Messages, Attachments: e.Attachments, FileLinks: e.Graph.FileLinks, Opens: e.Graph.Opens,
		}
		if err := s.Open("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		base := s.URL()

		u := e.MustUser(t, "ada@example.com", "Ada", core.PlanPro)
		id := core.NewID()
		env, err := core.Seal(filePassphrase, id, []byte("The deeds are in the blue box."), fastSeal)
		must(t, err)
		m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "For Ann", ID: id, Sealed: &core.SealedLetter{Envelope: env.String(), Hint: "Lisbon"},
			Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Bob", Address: "bob@example.com"}}})
		must(t, err)
		will, note := randomFile(200_000, "%PDF-1.7\n"), []byte("hello")
		sealedWill, sealedNote := sealedFile(t, m.ID, will), sealedFile(t, m.ID, note)
		attachFile(t, e, u.ID, m.ID, "will.pdf", sealedWill)
		attachFile(t, e, u.ID, m.ID, "note.txt", sealedNote)
		_, err = e.Attachments.Create(e.As(u.ID), m.ID, "half.bin", 1000) // never completed
		must(t, err)

		mails := sealedDeliveries(t, e, m)
		urls := map[string]string{}
		for _, who := range []string{"ann@example.com", "bob@example.com"} {
			mail := mails[who]
			if mail == nil {
				t.Fatalf("no sealed delivery to %s", who)
			}
			for _, part := range []string{mail.Text, mail.HTML} {
				if !strings.Contains(strings.ReplaceAll(part, "&#39;", "'"), " left you 2 files, sealed with the same passphrase: they open on the message's page, with the passphrase.") ||
					!strings.Contains(part, "will.pdf") || !strings.Contains(part, "200 KB") || !strings.Contains(part, "5 bytes") ||
					strings.Contains(part, "/files/") || strings.Contains(part, "half.bin") {
					t.Fatalf("%s's email:\n%s", who, part)
				}
			}
			if !strings.Contains(mail.Text, "\nwill.pdf (200 KB)\n") || !strings.Contains(mail.Text, "\nnote.txt (5 bytes)\n") || len(mail.Attachments) != 0 {
				t.Fatalf("%s's email lists or carries the files otherwise (%d carried):\n%s", who, len(mail.Attachments), mail.Text)
			}
			link := sealedOpenLink.FindStringSubmatch(mail.Text)
			if link == nil {
				t.Fatalf("no open link in\n%s", mail.Text)
			}
			res, body := fetch(t, base+"/api/open/"+link[1])
			var open openReply
			if res.StatusCode != http.StatusOK || json.Unmarshal(body, &open) != nil || len(open.Data.Files) != 2 {
				t.Fatalf("open: %d %s", res.StatusCode, body)
			}
			wants := map[string]struct{ sealed, plain []byte }{"will.pdf": {sealedWill, will}, "note.txt": {sealedNote, note}}
			for i, f := range open.Data.Files {
				want, ok := wants[f.Name]
				if !ok || f.Size != int64(len(want.sealed)) || !fileLinkPattern.MatchString(identityBaseURL+f.URL) ||
					!strings.HasPrefix(f.URL, "/files/"+f.ID+".") {
					t.Fatalf("the open reply's file %d: %+v", i, f)
				}
				urls[who+f.Name] = f.URL
				res, got := fetch(t, base+f.URL)
				if res.StatusCode != http.StatusOK || !bytes.Equal(got, want.sealed) {
					t.Fatalf("%s's download of %s: %d, %d bytes", who, f.Name, res.StatusCode, len(got))
				}
				var opened bytes.Buffer
				if _, err := core.OpenFile(&opened, bytes.NewReader(got), core.NewSealedFileKeys(filePassphrase), open.Data.MessageID); err != nil ||
					!bytes.Equal(opened.Bytes(), want.plain) {
					t.Fatalf("%s does not open: %v", f.Name, err)
				}
			}
		}
		if urls["ann@example.comwill.pdf"] == urls["bob@example.comwill.pdf"] {
			t.Fatal("ann and bob share a file link")
		}
		// A file of another message's link is not in this reply, and the
		// author's test link opens nothing as before.
		if res, _ := fetch(t, base+"/api/open/"+id+".test"); res.StatusCode != http.StatusNotFound {
			t.Fatalf("the test link: %d", res.StatusCode)
		}
	})
}

// A sealed message's files open on its page, so their links download as
// long as that page opens (a year) even when attachments.link_valid_for is
// shorter (a week here): past the page's year, the refusal names it.
func TestSealedFileLinksLastAsLongAsTheOpenPage(t *testing.T) {
	week := 7 * 24 * time.Hour
	testenv.Backends(t, testenv.Config{BaseURL: identityBaseURL, Start: testenv.DefaultStart, FileLinkValidity: week}, func(t *testing.T, e *testenv.Env) {
		s := &web.Server{
			Logger: slogDiscard(), BaseURL: identityBaseURL, AppName: "Sendlater", Clock: e.Clock,
			Identities: e.Auth, Messages: e.Messages, Attachments: e.Attachments, FileLinks: e.Graph.FileLinks, Opens: e.Graph.Opens,
		}
		if err := s.Open("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(context.Background()) })
		u := e.MustUser(t, "ada@example.com", "Ada", core.PlanPro)
		id := core.NewID()
		env, err := core.Seal(filePassphrase, id, []byte("The deeds are in the blue box."), fastSeal)
		must(t, err)
		m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "For Ann", ID: id, Sealed: &core.SealedLetter{Envelope: env.String()},
			Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}}})
		must(t, err)
		sealed := sealedFile(t, m.ID, []byte("the key to the blue box"))
		attachFile(t, e, u.ID, m.ID, "key.txt", sealed)
		link := sealedOpenLink.FindStringSubmatch(sealedDeliveries(t, e, m)["ann@example.com"].Text)
		if link == nil {
			t.Fatal("no open link")
		}
		_, body := fetch(t, s.URL()+"/api/open/"+link[1])
		var open openReply
		if json.Unmarshal(body, &open) != nil || len(open.Data.Files) != 1 {
			t.Fatalf("open: %s", body)
		}
		url := s.URL() + open.Data.Files[0].URL
		e.Clock.Add(30 * 24 * time.Hour) // past the week, within the year
		if res, got := fetch(t, url); res.StatusCode != http.StatusOK || !bytes.Equal(got, sealed) {
			t.Fatalf("after a month: %d", res.StatusCode)
		}
		e.Clock.Add(365 * 24 * time.Hour)
		if res, got := fetch(t, url); res.StatusCode != http.StatusGone || !strings.Contains(string(got), "a year after the message arrived") {
			t.Fatalf("after a year: %d %s", res.StatusCode, got)
		}
	})
}

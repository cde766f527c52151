package web_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/web"
)

// A sealed message's link opens for sealed.link_valid_for after delivery
// (here 30 days, as an operator may set it): the email says so, the link
// gives the envelope until then, and after it the open page's fetch is
// refused with words that say why, the same period named.
func TestSealedLinkOpensForItsValidity(t *testing.T) {
	const validity = 30 * 24 * time.Hour
	log := slogDiscard()
	e := testenv.New(t, testenv.Config{BaseURL: identityBaseURL, Logger: log, SealedLinkValidity: validity})
	srv := newTestServer(e, log)
	srv.Opens = e.Graph.Opens
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	id := core.NewID()
	env, err := core.Seal("violet harbor quietly mends seven copper lanterns", id, []byte("The deeds are in the blue box."), core.DefaultSealParams)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "For Ann", Name: "Ann", Recipient: "ann@example.com",
		ID: id, Sealed: &core.SealedLetter{Envelope: env.String(), Hint: "Lisbon"}})
	if err != nil {
		t.Fatal(err)
	}
	// The preview says the same period (its link is a test link).
	if ps, err := e.Messages.PreviewMessage(e.As(u.ID), m.ID, core.MessageUpdate{}); err != nil || len(ps) != 1 ||
		!strings.Contains(ps[0].Text, "it opens for 30 days") {
		t.Fatalf("the preview: %+v %v", ps, err)
	}
	e.Clock.Set(m.SendDate.Add(time.Minute))
	if _, err := e.Delivery.Run(e.Ctx); err != nil {
		t.Fatal(err)
	}
	var mail string
	for range 5 { // the reminders came first
		p, _ := e.Next(t, "ann@example.com")
		if strings.Contains(p.Subject, "sealed") {
			mail = p.Text + p.HTML
			break
		}
	}
	if strings.Count(mail, "the link is yours; it opens for 30 days") != 2 { // text and HTML
		t.Fatalf("the email does not say how long the link opens:\n%s", mail)
	}
	link := regexp.MustCompile(identityBaseURL + `/open/([A-Za-z0-9]+\.[A-Za-z0-9_-]+)`).FindStringSubmatch(mail)
	if link == nil {
		t.Fatalf("no open link in\n%s", mail)
	}
	fetch := func() (int, envelope) {
		t.Helper()
		res, err := http.Get(ts.URL + "/api/open/" + link[1])
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var out envelope
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%d %s", res.StatusCode, b)
		}
		return res.StatusCode, out
	}
	// A day before the end, the link still opens.
	e.Clock.Add(validity - 24*time.Hour)
	if status, out := fetch(); status != http.StatusOK || !strings.Contains(string(out.Data), env.String()) {
		t.Fatalf("29 days after: %d %+v", status, out)
	}
	// Past it, the open page is told, in words, that the link is spent.
	e.Clock.Add(25 * time.Hour)
	status, out := fetch()
	if status != http.StatusNotFound || out.Message != "This link does not open a sealed message. Check that you copied the whole link from your email; a link opens for 30 days after the message arrived." ||
		strings.Contains(string(out.Data), "sealed:v1") {
		t.Fatalf("31 days after: %d %+v", status, out)
	}
}

// The rest of the product around a sealed message, over the API: its
// preview and its test email say it is sealed and carry a test link (which
// opens nothing), never the envelope; the account's export keeps it sealed,
// with its hint, as the author's client can open it.
func TestASealedMessagesPreviewTestAndExport(t *testing.T) {
	a := startIdentityAPI(t, func(e *testenv.Env, s *web.Server, _ *slog.Logger) { s.Opens = e.Graph.Opens })
	pro := a.author("pro@example.com")
	a.grantPlan(pro.uid, core.PlanPro)
	a.MustVerify(t, pro.uid)
	id := core.NewID()
	env, err := core.Seal("violet harbor quietly mends seven copper lanterns", id, []byte("ZEBRA-ORCHID-7731"), core.DefaultSealParams)
	if err != nil {
		t.Fatal(err)
	}
	sealed := map[string]any{"envelope": env.String(), "hint": "Lisbon"}
	m := a.createMessage(pro, map[string]any{"id": id, "message": "", "sealed": sealed})

	var previews []web.EmailPreviewJSON
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/preview", pro.token, map[string]any{}, &previews)
	if len(previews) != 1 || !strings.Contains(previews[0].Text, "Their hint: Lisbon") ||
		!strings.Contains(previews[0].Text, "/open/"+id+".test") || strings.Contains(previews[0].Text+previews[0].HTML, "sealed:v1") {
		t.Fatalf("the preview: %+v", previews)
	}
	var sent web.TestSendJSON
	a.ok(nil, http.StatusOK, "POST", "/api/messages/"+m.ID+"/test", pro.token, nil, &sent)
	mail := a.email("pro@example.com")
	if !strings.HasPrefix(mail.Subject, "[Test] A sealed message") || !strings.Contains(mail.Text, identityBaseURL+"/open/"+id+".test") ||
		strings.Contains(mail.Text+mail.HTML, "sealed:v1") {
		t.Fatalf("the test email: %s\n%s", mail.Subject, mail.Text)
	}
	// The test link opens nothing: the page says so (open.ts's isTestToken).
	a.fail(nil, http.StatusNotFound, "request/not-found", "GET", "/api/open/"+id+".test", "", nil)

	var export struct {
		Messages []struct {
			ID      string `json:"id"`
			Message string `json:"message"`
			Sealed  *struct {
				Envelope string `json:"envelope"`
				Hint     string `json:"hint"`
			} `json:"sealed"`
		} `json:"messages"`
	}
	a.ok(nil, http.StatusOK, "GET", "/api/me/export", pro.token, nil, &export)
	if len(export.Messages) != 1 || export.Messages[0].Message != "" || export.Messages[0].Sealed == nil ||
		export.Messages[0].Sealed.Envelope != env.String() || export.Messages[0].Sealed.Hint != "Lisbon" {
		t.Fatalf("the export: %+v", export)
	}
}

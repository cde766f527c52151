package mailer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/mailer/smtptest"
)

func MustTemplates(tb testing.TB) *mailer.Templates {
	tb.Helper()
	t, err := mailer.NewTemplates("Sendlater", "https://sendlater.example")
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// checkEmail asserts both parts exist and contain want, and the HTML part
// holds none of notInHTML.
func checkEmail(t *testing.T, e *core.Email, want, notInHTML []string) {
	t.Helper()
	if e.Text == "" || e.HTML == "" || e.Subject == "" || len(e.To) != 1 {
		t.Fatalf("incomplete email: %+v", e)
	}
	if !strings.Contains(e.HTML, "Sendlater") || !strings.Contains(e.HTML, "<table") {
		t.Error("HTML misses the layout")
	}
	for _, w := range want {
		if !strings.Contains(e.Text, w) {
			t.Errorf("text part lacks %q:\n%s", w, e.Text)
		}
		if !strings.Contains(e.HTML, htmlEscape(w)) {
			t.Errorf("HTML part lacks %q:\n%s", htmlEscape(w), e.HTML)
		}
	}
	for _, n := range notInHTML {
		if strings.Contains(e.HTML, n) {
			t.Errorf("HTML part contains %q", n)
		}
	}
}

// htmlEscape is what html/template makes of plain text in an element.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

var ann = core.Address{Name: "Ann", Address: "ann@example.com"}

func TestVerifyAndResetEmails(t *testing.T) {
	tm := MustTemplates(t)
	link := "https://sendlater.example/firebase-action?mode=verifyEmail&oobCode=abc"
	e, err := tm.VerifyEmail(core.ActionEmail{To: ann, Link: link})
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "Verify your email for Sendlater" {
		t.Errorf("subject = %q", e.Subject)
	}
	checkEmail(t, e, []string{"Hello Ann", link}, nil)

	link = "https://sendlater.example/firebase-action?mode=resetPassword&oobCode=xyz"
	e, err = tm.PasswordReset(core.ActionEmail{To: ann, Link: link})
	if err != nil {
		t.Fatal(err)
	}
	checkEmail(t, e, []string{link, "valid for 1 hour"}, nil)
}

func TestEmailChangedEmail(t *testing.T) {
	e, err := MustTemplates(t).EmailChanged(core.EmailChangedEmail{
		To: ann, NewEmail: "new@example.com", RecoverLink: "https://sendlater.example/firebase-action?mode=recoverEmail&oobCode=r",
	})
	if err != nil {
		t.Fatal(err)
	}
	checkEmail(t, e, []string{"changed to", "new@example.com", "If it was not you", "https://sendlater.example/firebase-action?mode=recoverEmail&oobCode=r"}, nil)
}

func TestReminderEmail(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	e, err := MustTemplates(t).Reminder(core.ReminderEmail{
		To:            ann,
		Title:         "For Ben's birthday",
		SendDate:      time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC),
		Location:      berlin,
		PostponeLink:  "https://sendlater.example/postpone/m1?code=AbC123xyz0",
		DashboardLink: "https://sendlater.example/dashboard",
	})
	if err != nil {
		t.Fatal(err)
	}
	checkEmail(t, e, []string{
		"For Ben's birthday", "Monday, 2 March 2026 at 14:00 CET",
		"https://sendlater.example/postpone/m1?code=AbC123xyz0", "https://sendlater.example/dashboard",
		"sent automatically",
	}, nil)
	if !strings.Contains(e.HTML, ">Postpone</a>") {
		t.Error("HTML has no Postpone button")
	}
}

func TestDeliveryEmail(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	d := core.DeliveryEmail{
		To:              core.Address{Name: "Ann Reader", Address: "ann@example.com"},
		Author:          core.Address{Name: "Bob Author", Address: "bob@example.com"},
		Body:            "First line\nSecond <script>alert(1)</script> line\r\n\r\nLast & final",
		WrittenAt:       time.Date(2025, 9, 2, 8, 30, 0, 0, time.UTC),
		Location:        berlin,
		MessageID:       "delivery-9@sendlater.example",
		Date:            time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC),
		UnsubscribeLink: "https://sendlater.example/refuse/tok",
	}
	e, err := MustTemplates(t).Delivery(d)
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "A message from Bob Author" {
		t.Errorf("subject = %q", e.Subject)
	}
	if e.To[0] != d.To || e.ReplyTo == nil || *e.ReplyTo != d.Author {
		t.Errorf("To = %v, Reply-To = %v", e.To, e.ReplyTo)
	}
	if e.MessageID != d.MessageID || !e.Date.Equal(d.Date) {
		t.Errorf("Message-ID %q, Date %v not passed through", e.MessageID, e.Date)
	}
	if e.Headers["List-Unsubscribe"] != "<https://sendlater.example/refuse/tok>" ||
		e.Headers["List-Unsubscribe-Post"] != "List-Unsubscribe=One-Click" {
		t.Errorf("headers = %v", e.Headers)
	}
	checkEmail(t, e, []string{
		"Dear Ann Reader,", "Bob Author", "bob@example.com", "Tuesday, 2 September 2025 at 10:30 CEST",
		"delivers messages people wrote for the future", "https://sendlater.example/refuse/tok",
	}, []string{"<script>"})
	if !strings.Contains(e.Text, d.Body) {
		t.Errorf("text part does not hold the body verbatim:\n%s", e.Text)
	}
	if !strings.Contains(e.HTML, "First line<br>Second &lt;script&gt;alert(1)&lt;/script&gt; line<br><br>Last &amp; final") {
		t.Errorf("HTML body lost its line breaks or escaping:\n%s", e.HTML)
	}
}

func TestDeliveryFailedEmail(t *testing.T) {
	e, err := MustTemplates(t).DeliveryFailed(core.DeliveryFailedEmail{
		To: ann, Title: "For Ben", Recipient: core.Address{Name: "Ben", Address: "ben@example.com"},
		Reason: "550 no such user", DashboardLink: "https://sendlater.example/dashboard",
	})
	if err != nil {
		t.Fatal(err)
	}
	checkEmail(t, e, []string{"For Ben", "Ben <ben@example.com>", "550 no such user", "https://sendlater.example/dashboard"}, nil)
}

func TestContactEmail(t *testing.T) {
	e, err := MustTemplates(t).Contact(core.ContactEmail{
		To: core.Address{Address: "ops@sendlater.example"}, Name: "Eve <b>",
		Email: "eve@example.com", Message: "Hi,\n<img src=x onerror=alert(1)>",
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.ReplyTo == nil || e.ReplyTo.Address != "eve@example.com" || e.To[0].Address != "ops@sendlater.example" {
		t.Errorf("Reply-To = %v, To = %v", e.ReplyTo, e.To)
	}
	checkEmail(t, e, []string{"Eve <b>", "eve@example.com", "<img src=x onerror=alert(1)>"}, nil)
	if strings.Contains(e.HTML, "<img") || strings.Contains(e.HTML, "<b>") {
		t.Error("HTML part carries unescaped user input")
	}
}

func TestOperatorSummaryEmail(t *testing.T) {
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	e, err := MustTemplates(t).OperatorSummary(core.OperatorSummaryEmail{
		To: core.Address{Address: "ops@sendlater.example"}, Since: at.Add(-24 * time.Hour), Pending: 3, Failed: 2,
		Items: []core.SummaryItem{
			{Kind: core.OutboxFailureNotice, MessageID: "m1", Owner: "u1", Error: "550 <refused>", FailedAt: at},
			{Kind: core.OutboxEmail, Recipient: "b***@example.com", Error: "554 spam", FailedAt: at},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.Subject, "2 failed for good") {
		t.Errorf("subject %q", e.Subject)
	}
	checkEmail(t, e, []string{"failed for good", "m1", "u1", "550 <refused>", "b***@example.com", "554 spam", "wait for a retry"}, nil)
	if strings.Contains(e.HTML, "<refused>") {
		t.Error("HTML part carries an unescaped error")
	}
}

func TestSubjectHasNoLineBreaks(t *testing.T) {
	e, err := MustTemplates(t).Reminder(core.ReminderEmail{To: ann, Title: "a\r\nBcc: evil@example.net", SendDate: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(e.Subject, "\r\n") {
		t.Errorf("subject = %q", e.Subject)
	}
}

func TestReminderLinkCanBeFollowedAfterSMTP(t *testing.T) {
	srv := smtptest.Start(t)
	postpone := "https://sendlater.example/postpone/m1?code=AbC123xyz0&x=1"
	e, err := MustTemplates(t).Reminder(core.ReminderEmail{
		To: ann, Title: "Für Ben – ünïcödé", SendDate: time.Now(), PostponeLink: postpone,
		DashboardLink: "https://sendlater.example/dashboard",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := MustSMTP(t, srv).Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	_, p := MustReceiveOne(t, srv)
	if got := p.Link("https://sendlater.example/postpone/"); got != postpone {
		t.Errorf("postpone link = %q, want %q (links %q)", got, postpone, p.Links())
	}
	if p.Subject != e.Subject {
		t.Errorf("subject = %q, want %q", p.Subject, e.Subject)
	}
}

// BenchmarkDeliveryEmail is the email a delivery pass renders for each
// recipient of each message: subject, text and HTML.
func BenchmarkDeliveryEmail(b *testing.B) {
	tp := MustTemplates(b)
	d := core.DeliveryEmail{
		To:              core.Address{Name: "Ann Reader", Address: "ann@example.com"},
		Author:          core.Address{Name: "Bob Author", Address: "bob@example.com"},
		Body:            strings.Repeat("A line of a letter written for later.\n", 20),
		WrittenAt:       time.Date(2025, 9, 2, 8, 30, 0, 0, time.UTC),
		Location:        time.UTC,
		MessageID:       "delivery-9@sendlater.example",
		Date:            time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC),
		UnsubscribeLink: "https://sendlater.example/refuse/tok",
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tp.Delivery(d); err != nil {
			b.Fatal(err)
		}
	}
}

// Every value of a delivery email is escaped in its place in the HTML part:
// markup in names and addresses, a link that is not http(s), no time zone.
func TestDeliveryEmailEscapesEveryValue(t *testing.T) {
	e, err := MustTemplates(t).Delivery(core.DeliveryEmail{
		To:              core.Address{Name: `Ann "<b>"`, Address: "ann@example.com"},
		Author:          core.Address{Name: "Bob & <i>", Address: `bob"+x@example.com`},
		Body:            "<p>hi</p>",
		WrittenAt:       time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC),
		UnsubscribeLink: "javascript:alert(1)",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Dear Ann &#34;&lt;b&gt;&#34;,", "Written by Bob &amp; &lt;i&gt; &lt;", `href="mailto:bob%22&#43;x@example.com"`,
		"&lt;p&gt;hi&lt;/p&gt;", "on Thursday, 2 January 2025 at 03:04 UTC.", `href="#ZgotmplZ"`,
	} {
		if !strings.Contains(e.HTML, want) {
			t.Errorf("HTML lacks %s:\n%s", want, e.HTML)
		}
	}
	if strings.Contains(e.HTML, "<b>") || strings.Contains(e.HTML, "<i>") || strings.Contains(e.HTML, "javascript:") {
		t.Errorf("HTML holds unescaped input:\n%s", e.HTML)
	}
	if !strings.Contains(e.Text, `Written by Bob & <i> <bob"+x@example.com> on Thursday, 2 January 2025 at 03:04 UTC.`) {
		t.Errorf("text part:\n%s", e.Text)
	}
}

func TestAccountClaimedEmail(t *testing.T) {
	tm := MustTemplates(t)
	started := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	e, err := tm.AccountClaimed(core.AccountClaimedEmail{To: ann, Provider: "Google", StartedAt: started, Messages: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkEmail(t, e, []string{"You just signed in to Sendlater with Google.", "on Sunday, 1 March 2026 at 12:00 UTC",
		"any password it had and every sign-in to it were removed", "The 2 messages written in it are paused",
		"If you wrote them, resume them in your dashboard; if not, delete them.",
		"If that was you, there is nothing to do but resume your messages.", "choose one in your settings"}, nil)
	e, err = tm.AccountClaimed(core.AccountClaimedEmail{To: ann, StartedAt: started})
	if err != nil {
		t.Fatal(err)
	}
	checkEmail(t, e, []string{"You just chose a new password for Sendlater.", "its old password and every sign-in to it were removed",
		"If that was you, there is nothing to do."}, []string{"deleted unsent", "settings"})
}

package mailer_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The emails wear the web app's brand (issue 29): its indigo for the wordmark, the button and
// the links, its type, colours for a dark reader, and a plain-text part without markup.
func TestEmailsWearTheAppsBrand(t *testing.T) {
	tm := MustTemplates(t)
	verify, err := tm.VerifyEmail(core.ActionEmail{To: ann, Link: "https://sendlater.example/firebase-action?mode=verifyEmail&oobCode=abc"})
	if err != nil {
		t.Fatal(err)
	}
	reminder, err := tm.Reminder(core.ReminderEmail{
		To: ann, Title: "For Ben", SendDate: time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC),
		PostponeLink: "https://sendlater.example/postpone/m1?code=AbC123xyz0", DashboardLink: "https://sendlater.example/dashboard",
	})
	if err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`<[a-zA-Z/][^>]*>|&[a-z]+;|&#\d+;`)
	for name, e := range map[string]*core.Email{"verify": verify, "reminder": reminder} {
		for _, want := range []string{
			`Send<span class="brand-accent" style="color:#524ed2;">later</span>`, // the wordmark as the app draws it
			`background-color:#524ed2`,                        // the button in the app's primary
			`font-family:Inter,`,                              // the app's face first
			`<meta name="color-scheme" content="light dark">`, // a dark reader's client may darken it...
			`@media (prefers-color-scheme: dark)`,             // ...with colours chosen for it
		} {
			if !strings.Contains(e.HTML, want) {
				t.Errorf("%s: HTML lacks %q", name, want)
			}
		}
		if strings.Contains(e.HTML, "#1e3a5f") {
			t.Errorf("%s: HTML still uses the old navy", name)
		}
		if m := tag.FindString(e.Text); m != "" {
			t.Errorf("%s: the text part holds markup %q:\n%s", name, m, e.Text)
		}
	}
	if !strings.Contains(reminder.HTML, `class="link" style="color:#4f4bc9;"`) {
		t.Errorf("reminder: the dashboard link is not in the brand's link colour:\n%s", reminder.HTML)
	}
}

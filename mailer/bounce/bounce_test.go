package bounce_test

import (
	"errors"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/mailer/bounce"
)

// The reports of the mail systems people write to, in the shapes they send
// them (written for these tests from RFC 3464, RFC 5965 and public samples):
// each gives its recipients' kind, status and the remote server's words, and
// the Message-ID of the email it is about.
func TestParseReports(t *testing.T) {
	type rcpt struct{ addr, kind, status, diag string }
	for _, c := range []struct {
		file, typ, messageID string
		want                 []rcpt
	}{
		{"postfix-hard.eml", "delivery-status", "m1.r1@sendlater.test", []rcpt{{"bob@example.org", "hard", "5.1.1",
			"550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in virtual mailbox table"}}},
		{"postfix-delayed.eml", "delivery-status", "m2.r1@sendlater.test", []rcpt{{"carol@slow.example.net", "soft", "4.4.1",
			"connect to mx.slow.example.net[198.51.100.9]:25: Connection timed out"}}},
		{"exim-hard-and-soft.eml", "delivery-status", "m3.r1@sendlater.test", []rcpt{
			{"dan@example.com", "hard", "5.0.0", "550 No such user here"},
			{"erin@example.com", "soft", "4.2.2", "452 4.2.2 Mailbox full"}}},
		{"gmail-hard.eml", "delivery-status", "m4.r1@sendlater.test", []rcpt{{"frank.nobody@gmail.com", "hard", "5.1.1",
			"550-5.1.1 The email account that you tried to reach does not exist. Please try 550-5.1.1 double-checking the recipient's email address for typos or 550-5.1.1 unnecessary spaces. For more information, go to 550 5.1.1 https://support.google.com/mail/?p=NoSuchUser a1si2.123 - gsmtp"}}},
		{"m365-hard.eml", "delivery-status", "m5.r1@sendlater.test", []rcpt{{"grace@contoso.com", "hard", "5.1.10",
			"550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient grace@contoso.com not found by SMTP address lookup"}}},
		{"delivered.eml", "delivery-status", "", []rcpt{{"henry@example.org", "unknown", "2.0.0", "250 2.0.0 Ok: queued as 12345"}}},
		{"arf-yahoo.eml", "feedback-report", "m7.r1@sendlater.test", []rcpt{{"ivy@yahoo.com", "complaint", "", ""}}},
		{"arf-headers-only.eml", "feedback-report", "m8.r1@sendlater.test", []rcpt{{"jack@outlook.com", "complaint", "", ""}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := bounce.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			var got []rcpt
			for _, r := range rep.Recipients {
				got = append(got, rcpt{r.Address, r.Kind.String(), r.Status, r.Diagnostic})
			}
			if rep.Type != c.typ || rep.MessageID != c.messageID || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %s %q %+v\nwant %s %q %+v", rep.Type, rep.MessageID, got, c.typ, c.messageID, c.want)
			}
		})
	}
}

// Anything else is not a report, and a report cut short keeps what came
// before the cut.
func TestParseRefusesWhatIsNoReport(t *testing.T) {
	for _, in := range []string{"", "garbage", "From: a@b\r\nSubject: hi\r\n\r\nhello", mustRead(t, "not-a-report.eml"),
		"Content-Type: multipart/report; report-type=delivery-status\r\n\r\nno boundary"} {
		if _, err := bounce.Parse(strings.NewReader(in)); !errors.Is(err, bounce.ErrNotAReport) {
			t.Errorf("%.40q: %v", in, err)
		}
	}
	full := mustRead(t, "postfix-hard.eml")
	cut := full[:strings.Index(full, "Content-Description: Undelivered Message")+20]
	rep, err := bounce.Parse(strings.NewReader(cut))
	if err != nil || len(rep.Recipients) != 1 || rep.Recipients[0].Kind != bounce.Hard {
		t.Fatalf("a report cut in its returned message: %+v %v", rep, err)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParse: no input makes Parse panic.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"postfix-hard.eml", "exim-hard-and-soft.eml", "arf-yahoo.eml"} {
		b, _ := os.ReadFile("testdata/" + name)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		bounce.Parse(strings.NewReader(in))
	})
}

// A complaint report names the envelope sender of the email it is about
// (Original-Mail-From, the returned message's Return-Path), each once; a
// headers-only report without them names none; a DSN's returned message
// its Return-Path, if it kept one.
func TestParseReturnPaths(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"arf-yahoo.eml", []string{"bounces+tok7@bounces.sendlater.test"}},
		{"arf-headers-only.eml", nil},
	} {
		f, err := os.Open("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := bounce.Parse(f)
		f.Close()
		if err != nil || !slices.Equal(rep.ReturnPaths, c.want) {
			t.Fatalf("%s: return paths %q, %v; want %q", c.file, rep.ReturnPaths, err, c.want)
		}
	}
}

// A DSN that returns the whole message (Postfix's default), here with
// 512 KB of body, reads as the same report as with a short one, and its
// returned message is read only as far as its headers: parsing it
// allocates far less than the message's size (issue 31: the CPU and
// garbage of a DSN; it was copied whole, then its copy read again).
func TestParseLargeReturnedMessage(t *testing.T) {
	raw, err := os.ReadFile("testdata/postfix-hard.eml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := bounce.Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("A line of a long attachment, as base64 is: QUJDREVGR0hJSktMTU5PUA==\r\n", 8000) // about 560 KB
	big := strings.Replace(string(raw), "Dear Bob, ...", "Dear Bob, ...\r\n"+body, 1)
	if len(big) < 512<<10 {
		t.Fatal("the fixture changed: no returned message's body to grow")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := bounce.Parse(strings.NewReader(big))
	runtime.ReadMemStats(&after)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 128<<10 {
		t.Fatalf("parsing a DSN of %d bytes allocated %d bytes", len(big), n)
	}
}

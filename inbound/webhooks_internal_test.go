package inbound

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// Whatever an SES event holds, reading it neither panics nor makes up a
// return path: a report names an address of the bounce domain or none,
// with a kind core knows and a reason on one line.
func FuzzSESReport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "ses-*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(strings.ReplaceAll(string(b), "%RETURN_PATH%", "Sendlater <bounces+abc@bounces.sendlater.test>"))
	}
	f.Add(`{"eventType":"Bounce","bounce":{"bounceType":"Permanent"},"mail":{"headers":[{"name":"return-path","value":"<bounces+x@bounces.sendlater.test>"}]}}`)
	f.Add(`{"notificationType":"Complaint","complaint":{},"mail":{"source":"a@b"}}`)
	w := &Webhooks{Addresses: core.NewBounceAddresses([]byte("a bounce secret of 32 bytes!!!!!"), "bounces.sendlater.test")}
	f.Fuzz(func(t *testing.T, message string) {
		r, ok := w.sesReport(message)
		if !ok {
			return
		}
		if r.Kind < core.BounceSoft || r.Kind > core.BounceComplaint || r.Source != "ses" {
			t.Fatalf("%+v", r)
		}
		if r.ReturnPath != "" && !w.Addresses.IsBounceAddress(r.ReturnPath) {
			t.Fatalf("return path %q", r.ReturnPath)
		}
		if r.Reason == "" {
			t.Fatalf("no reason: %+v", r)
		}
	})
}

// The string SNS signs has the fields of each type in SNS's order, and
// Subject only when the message has one.
func TestSNSStringToSign(t *testing.T) {
	subject := "Amazon SES Email Event Notification"
	n := snsMessage{Type: snsNotification, MessageID: "id", TopicArn: "arn", Message: "m", Timestamp: "ts", Subject: &subject, Token: "ignored"}
	if got, want := n.stringToSign(), "Message\nm\nMessageId\nid\nSubject\n"+subject+"\nTimestamp\nts\nTopicArn\narn\nType\nNotification\n"; got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
	n.Subject = nil
	if got, want := n.stringToSign(), "Message\nm\nMessageId\nid\nTimestamp\nts\nTopicArn\narn\nType\nNotification\n"; got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
	s := snsMessage{Type: snsSubscription, MessageID: "id", TopicArn: "arn", Message: "m", Timestamp: "ts", Token: "tok", SubscribeURL: "u"}
	if got, want := s.stringToSign(), "Message\nm\nMessageId\nid\nSubscribeURL\nu\nTimestamp\nts\nToken\ntok\nTopicArn\narn\nType\nSubscriptionConfirmation\n"; got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
}

// Only Amazon's SNS hosts over https are trusted for certificates (a .pem)
// and subscription URLs.
func TestTrustedSNSURLs(t *testing.T) {
	c := SESConfig{}
	for _, u := range []string{"https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem", "https://sns.us-gov-west-1.amazonaws.com/x.pem"} {
		if !c.trustedURL(u, true) {
			t.Errorf("%s refused", u)
		}
	}
	for _, u := range []string{
		"http://sns.eu-west-1.amazonaws.com/x.pem", "https://sns.eu-west-1.amazonaws.com:8443/x.pem",
		"https://sns.eu-west-1.amazonaws.com.evil.example/x.pem", "https://evil.example/sns.eu-west-1.amazonaws.com/x.pem",
		"https://user@sns.eu-west-1.amazonaws.com/x.pem", "https://sns.eu-west-1.amazonaws.com/x.txt",
		"https://s3.amazonaws.com/x.pem", "https://SNS.eu-west-1.amazonaws.com/x.pem", "//sns.eu-west-1.amazonaws.com/x.pem",
	} {
		if c.trustedURL(u, true) {
			t.Errorf("%s trusted", u)
		}
	}
	if !c.trustedURL("https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t", false) {
		t.Error("a SubscribeURL of SNS refused")
	}
}

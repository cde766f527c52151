package tui_test

import (
	"strings"
	"testing"

	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/dnscheck/dnstest"
)

// A recipient whose domain receives no email is saved, and the status line
// says what to check, on both implementations (remote: the API's
// warnings[] read back by web.APIClient).
func TestSavedWithADomainWithoutMail(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			dns := dnstest.MustStart(t)
			dns.Add(t, "example.com. 300 IN MX 10 mx.example.com.")
			ch, err := dnscheck.New(dnscheck.Config{Server: dns.Addr})
			if err != nil {
				t.Fatal(err)
			}
			e.Messages.Domains = ch
			cfg, _ := b.open(t, e, ann)
			d := drive(t, cfg, 220, 40)
			d.waitFor("No messages yet")

			d.press("n")
			d.waitFor("Create Message")
			d.typeText("Rent")
			d.press("tab")
			d.typeText("Bob")
			d.press("tab")
			d.typeText("bob@lapsed.example")
			d.press("tab", "right", "tab")
			d.typeText("The key is under the blue pot.")
			d.press("ctrl+s")
			s := d.waitFor("The message is saved, but: The domain lapsed.example does not receive email")
			if !rowHas(s, "Rent", "Bob <bob@lapsed.example>") || strings.Contains(s, "Create Message") {
				t.Fatalf("the message is not listed:\n%s", s)
			}
		})
	}
}

package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/dnscheck/dnstest"
	"github.com/sendlater/sendlater/internal/testenv"
)

// domainsEnv is an environment whose saves look recipients' domains up in
// an in-process DNS server: example.com receives mail, lapsed.example
// exists without a mail server, gone.example does not exist.
func domainsEnv(t *testing.T, queryTimeout time.Duration) (*testenv.Env, *dnstest.Server) {
	t.Helper()
	dns := dnstest.MustStart(t)
	dns.Add(t, "example.com. 300 IN MX 10 mx.example.com.", "lapsed.example. 300 IN TXT \"parked\"")
	ch, err := dnscheck.New(dnscheck.Config{Server: dns.Addr, QueryTimeout: queryTimeout})
	if err != nil {
		t.Fatal(err)
	}
	return testenv.New(t, testenv.Config{Domains: ch}), dns
}

// A recipient whose domain receives no email is a warning on the saved
// message, naming the field and the domain; the message is saved all the
// same, and an edit that fixes the address clears it.
func TestSaveWarnsOfADomainWithoutMail(t *testing.T) {
	e, _ := domainsEnv(t, time.Second)
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	ctx := e.As(u.ID)
	m, err := e.Messages.Create(ctx, core.MessageInput{Title: "To all", Body: "Dear all", Recipients: []core.RecipientInput{
		{Name: "Bob", Address: "bob@example.com"},
		{Name: "Cy", Address: "cy@lapsed.example"},
		{Name: "Di", Address: "di@gone.example"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"recipients[1].recipient": "lapsed.example", "recipients[2].recipient": "gone.example"}
	if len(m.Warnings) != len(want) {
		t.Fatalf("warnings %+v, want one for each of %v", m.Warnings, want)
	}
	for _, w := range m.Warnings {
		if d, ok := want[w.Field]; !ok || w.Code != core.WRecipientNoMail || !strings.Contains(w.Message, d) {
			t.Fatalf("warning %+v", w)
		}
	}
	if _, err := e.Messages.Get(ctx, m.ID); err != nil {
		t.Fatalf("the message was not saved: %v", err)
	}

	rs := []core.RecipientInput{{Name: "Cy", Address: "cy@lapsed.example"}}
	m, err = e.Messages.Update(ctx, m.ID, core.MessageUpdate{Recipients: &rs})
	if err != nil || len(m.Warnings) != 1 || m.Warnings[0].Field != "recipient" {
		t.Fatalf("edit to a domain without mail: %+v, %v", m, err)
	}
	rs = []core.RecipientInput{{Name: "Cy", Address: "cy@example.com"}}
	m, err = e.Messages.Update(ctx, m.ID, core.MessageUpdate{Recipients: &rs})
	if err != nil || len(m.Warnings) != 0 {
		t.Fatalf("edit to a domain with mail: %+v, %v", m.Warnings, err)
	}
	if got, err := e.Messages.Get(ctx, m.ID); err != nil || got.Warnings != nil {
		t.Fatalf("a read carries warnings: %v, %v", got, err)
	}
}

// A resolver that does not answer neither fails nor holds up a save
// beyond the check's bound, and warns of nothing.
func TestSaveWithTheResolverDown(t *testing.T) {
	e, dns := domainsEnv(t, 10*time.Second)
	e.Messages.DomainCheckTimeout = 300 * time.Millisecond
	dns.Silence(true)
	u := e.MustUser(t, "ada@example.com", "", core.PlanStarter)
	start := time.Now()
	m, err := e.Messages.Create(e.As(u.ID), core.MessageInput{Title: "T", Name: "Cy", Recipient: "cy@gone.example", Body: "Hi"})
	if err != nil || len(m.Warnings) != 0 {
		t.Fatalf("%+v, %v", m, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the save took %v with a silent resolver", took)
	}
}

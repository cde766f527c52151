package core_test

import (
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// A return path names its message, recipient and email, shows none of
// them, and nothing but a token made here reads.
func TestBounceAddressesRoundTrip(t *testing.T) {
	b := core.NewBounceAddresses([]byte("0123456789abcdef0123456789abcdef"), "Bounces.Example.NET")
	ref := core.BounceRef{MessageID: "AbCdEfGhIjKlMnOpQrSt", Recipient: 9, Email: core.BounceNotice, Address: "ann@example.com"}
	addr := b.Address(ref)
	local := addr[:strings.IndexByte(addr, '@')]
	if !strings.HasPrefix(addr, "bounces+") || !strings.HasSuffix(addr, "@bounces.example.net") || len(local) > 64 ||
		strings.Contains(strings.ToLower(addr), strings.ToLower(ref.MessageID)) {
		t.Fatalf("address %q", addr)
	}
	if addr != b.Address(ref) {
		t.Fatal("the same email must get the same return path")
	}
	for _, a := range []string{addr, strings.ToUpper(addr), "<" + addr + ">"} {
		if got, ok := b.Read(a); !ok || got.MessageID != ref.MessageID || got.Recipient != 9 || got.Email != core.BounceNotice ||
			!b.Names(got, "Ann@Example.com") || b.Names(got, "ben@example.com") {
			t.Fatalf("Read(%q) = %+v, %v", a, got, ok)
		}
	}
	other := b.Address(core.BounceRef{MessageID: ref.MessageID, Recipient: 0, Address: ref.Address})
	if other == addr {
		t.Fatal("two recipients share a return path")
	}
	// Altered, forged, of another domain or another key: refused.
	flip := []byte(addr)
	flip[10] ^= 1
	if flip[10] < 'a' || flip[10] > 'z' {
		flip[10] = 'a'
	}
	otherKey := core.NewBounceAddresses([]byte("fedcba9876543210fedcba9876543210"), "bounces.example.net")
	for _, bad := range []string{string(flip), "bounces+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@bounces.example.net",
		strings.Replace(addr, "example.net", "example.org", 1), "bounces@bounces.example.net", "", "bounces+@bounces.example.net",
		otherKey.Address(ref)} {
		if got, ok := b.Read(bad); ok {
			t.Fatalf("Read(%q) = %+v", bad, got)
		}
	}
	if !b.IsBounceAddress("bounces+whatever@bounces.example.net") || b.IsBounceAddress("postmaster@bounces.example.net") {
		t.Fatal("IsBounceAddress")
	}
	if b.Address(core.BounceRef{MessageID: strings.Repeat("x", 23)}) != "" {
		t.Fatal("an id too long for a local part must get no return path")
	}
	if core.NewBounceAddresses([]byte("k"), "") != nil {
		t.Fatal("no domain, no return paths")
	}
}

// With a bounce domain, each recipient's delivery and notice go out with
// a return path of its own that reads back to that recipient; the author's
// test email keeps the sender's.
func TestEmailsToRecipientsCarryTheirReturnPath(t *testing.T) {
	e := &deliveryEnv{testenv.New(t, testenv.Config{Start: march1, BounceDomain: "bounces.example.net"})}
	e.Delivery.Reminders = nil
	u := e.MustUser(t, "ada@example.com", "", core.PlanPro)
	e.MustVerify(t, u.ID)
	ctx := e.As(u.ID)
	m, err := e.Messages.Create(ctx, core.MessageInput{Title: "t", Body: "Dear all,\nhello",
		Recipients: []core.RecipientInput{{Name: "Ann", Address: "ann@example.com"}, {Name: "Ben", Address: "ben@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Messages.NotifyRecipient(ctx, m.ID, "ben@example.com"); err != nil {
		t.Fatal(err)
	}
	e.pass(t, core.PassResult{})
	_, notice := e.nextEmail(t, "ben@example.com")
	if ref, ok := e.Graph.Bounces.Read(notice.From); !ok || ref.MessageID != m.ID || ref.Recipient != 1 || ref.Email != core.BounceNotice {
		t.Fatalf("notice's MAIL FROM %q reads %+v %v", notice.From, ref, ok)
	}
	if _, err := e.Messages.SendTest(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	e.pass(t, core.PassResult{})
	for range 2 { // one as each recipient will receive it
		if _, test := e.nextEmail(t, "ada@example.com"); test.From != testenv.Sender {
			t.Fatalf("the test email's MAIL FROM %q", test.From)
		}
	}
	e.Clock.Set(m.SendDate)
	e.pass(t, core.PassResult{Delivered: 2})

	for i, to := range []string{"ann@example.com", "ben@example.com"} {
		p, raw := e.nextEmail(t, to)
		if ref, ok := e.Graph.Bounces.Read(raw.From); !ok || ref.MessageID != m.ID || ref.Recipient != i || ref.Email != core.BounceDelivery || !e.Graph.Bounces.Names(ref, to) {
			t.Fatalf("%s: MAIL FROM %q reads %+v %v", to, raw.From, ref, ok)
		}
		if strings.Contains(string(raw.Data), "bounces+") || p.Header.Get("From") == "" {
			t.Fatalf("the return path must not show in the headers:\n%s", raw.Data)
		}
	}
}

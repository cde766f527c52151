package seal_test

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

var key = bytes.Repeat([]byte{0x5e}, seal.KeySize)

func mustSealer(tb testing.TB, key []byte) *seal.Sealer {
	tb.Helper()
	s, err := seal.New(key)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Bytes sealed by the bbolt store before this package existed still open:
// the envelope, its additional data and the derived hash key are unchanged.
func TestGoldenBytes(t *testing.T) {
	s := mustSealer(t, key)
	body := unhex(t, "012c14af758c1cec4bd3dc6c17ece474960b4405dafb25f8ad4312182141131463ca0cb7c54e63dd")
	m, err := s.OpenMessage(&seal.Message{Plain: core.Message{ID: "m1"}, Body: body})
	if err != nil || m.Body != "golden body" {
		t.Fatalf("golden body opened as %q, %v", m.Body, err)
	}
	check := unhex(t, "29626fc75f996a9ec4386e9574149bebe7cf5de44e7686b65b35eb1b00db4c1b65a78a321821330aa3a051c0ab589c33300407e4a4806ce0")
	if !s.CheckKey([]byte("key_check"), check) {
		t.Fatal("the golden key check does not open")
	}
	refusal := "1ab12ac962c142bd1b147b3938a8faa5ade78cf6d2a09368abe121f6b86d4d16"
	for _, addr := range []string{"Grace@Example.com", " grace@example.COM "} {
		if got := hex.EncodeToString(s.AddressHash(addr)); got != refusal {
			t.Fatalf("AddressHash(%q) = %s, want %s", addr, got, refusal)
		}
	}
}

func TestMessageRoundTrip(t *testing.T) {
	s := mustSealer(t, key)
	m := &core.Message{
		ID: "m1", Owner: "u1", Title: "T", Name: "Grace", Recipient: "grace@example.com",
		Body: "Dear Grace,\nünïcödé", LastError: "550 no such user", Status: core.StatusFailed,
		SendDate: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC),
		Recipients: []core.Recipient{{Name: "Grace", Address: "grace@example.com", Status: core.RecipientFailed, LastError: "550 no such user"},
			{Name: "Alan", Address: "alan@example.org", Status: core.RecipientSent, EmailMessageID: "x@y",
				SentAt: time.Date(2025, 2, 1, 0, 0, 1, 0, time.UTC)}},
	}
	sm := s.SealMessage(m)
	if sm.Plain.Title != "" || sm.Plain.Body != "" || sm.Plain.Recipient != "" || sm.Plain.Name != "" || sm.Plain.LastError != "" {
		t.Fatalf("a sealed message keeps contents in clear: %+v", sm.Plain)
	}
	if sm.Plain.Recipients != nil {
		t.Fatal("a sealed message keeps its recipients in clear")
	}
	for _, b := range [][]byte{sm.Title, sm.Name, sm.Recipient, sm.Body, sm.LastError, sm.Recipients} {
		if bytes.Contains(b, []byte("Grace")) || bytes.Contains(b, []byte("550")) || bytes.Contains(b, []byte("alan@")) {
			t.Fatal("a sealed field holds its plaintext")
		}
	}
	got, err := s.OpenMessage(&sm)
	if err != nil {
		t.Fatal(err)
	}
	if !core.SameRecipients(got.Recipients, m.Recipients) {
		t.Fatalf("opened recipients %+v, want %+v", got.Recipients, m.Recipients)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("opened %+v, want %+v", got, m)
	}
	sm.LastError = nil
	if got, err = s.OpenMessage(&sm); err != nil || got.LastError != "" || got.Body != m.Body {
		t.Fatalf("without a last error: %+v, %v", got, err)
	}
}

// A ciphertext opens only in its own record and field, and only with its key.
func TestBoundToPlaceAndKey(t *testing.T) {
	s := mustSealer(t, key)
	sm := s.SealMessage(&core.Message{ID: "m1", Title: "title", Name: "n", Recipient: "r", Body: "body"})
	moved := sm
	moved.Plain.ID = "m2"
	if _, err := s.OpenMessage(&moved); err == nil || !strings.Contains(err.Error(), "does not authenticate") {
		t.Fatalf("a record moved to another id opened: %v", err)
	}
	swapped := sm
	swapped.Body = sm.Title
	if _, err := s.OpenMessage(&swapped); err == nil {
		t.Fatal("a title moved into the body opened")
	}
	other := mustSealer(t, bytes.Repeat([]byte{0x17}, seal.KeySize))
	if _, err := other.OpenMessage(&sm); err == nil {
		t.Fatal("another key opened the message")
	}
	if other.KeyID() == s.KeyID() || s.KeyID() != mustSealer(t, key).KeyID() {
		t.Fatal("KeyID does not tell keys apart")
	}
	if other.CheckKey([]byte("key_check"), s.KeyCheck([]byte("key_check"))) {
		t.Fatal("another key passed the key check")
	}
	damaged := sm
	damaged.Body = append([]byte{2}, sm.Body[1:]...)
	if _, err := s.OpenMessage(&damaged); err == nil || !strings.Contains(err.Error(), "unknown seal format") {
		t.Fatalf("an unknown format opened: %v", err)
	}
}

func TestOutboxItemAndSecret(t *testing.T) {
	s := mustSealer(t, key)
	c := &core.OutboxItem{ID: "m1", MessageID: "m1", Owner: "u1", URL: "https://hooks.example/x", Recipient: "grace@example.com", LastError: "503"}
	sc := s.SealOutboxItem(c)
	if sc.Plain.Recipient != "" || sc.Plain.LastError != "" || sc.Email != nil {
		t.Fatalf("a sealed item keeps contents in clear: %+v", sc.Plain)
	}
	got, err := s.OpenOutboxItem(&sc)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("opened %+v, %v; want %+v", got, err, c)
	}
	// An email with a secret link: sealed whole, read back equal.
	e := &core.Email{From: core.Address{Address: "no-reply@example.com"}, To: []core.Address{{Name: "Ada", Address: "ada@example.com"}},
		ReplyTo: &core.Address{Address: "x@example.com"}, Subject: "Reset", Text: "https://x/firebase-action?oobCode=SECRET",
		HTML: "<p>link</p>", Date: time.Unix(1_700_000_000, 5).UTC(), MessageID: "id@x", Headers: map[string]string{"X-A": "b"}}
	item := &core.OutboxItem{ID: "e1", Kind: core.OutboxEmail, Recipient: "ada@example.com", Email: e}
	sealed := s.SealOutboxItem(item)
	if sealed.Plain.Email != nil || bytes.Contains(sealed.Email, []byte("SECRET")) {
		t.Fatal("the email is kept in clear")
	}
	if got, err := s.OpenOutboxItem(&sealed); err != nil || !reflect.DeepEqual(got, item) {
		t.Fatalf("opened %+v, %v; want %+v", got, err, item)
	}
	// Bound to the item's id.
	sealed.Plain.ID = "e2"
	if _, err := s.OpenOutboxItem(&sealed); err == nil {
		t.Fatal("an item's sealed fields opened under another id")
	}
	secret := s.SealWebhookSecret("u1", "whsec_x")
	if got, err := s.OpenWebhookSecret("u1", secret); err != nil || got != "whsec_x" {
		t.Fatalf("secret %q, %v", got, err)
	}
	if _, err := s.OpenWebhookSecret("u2", secret); err == nil {
		t.Fatal("another user's secret opened")
	}
}

func TestKeySize(t *testing.T) {
	if _, err := seal.New(key[:16]); core.ErrorCode(err) != core.EInvalid {
		t.Fatalf("a 16-byte key: %v", err)
	}
}

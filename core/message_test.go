package core_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func validInput() core.MessageInput {
	return core.MessageInput{Title: "For Anna", Name: "Anna", Recipient: "anna@example.com", Body: "Dear Anna,\nhello."}
}

func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := core.AsError(err)
	if !ok || e.Code != core.EValidation {
		t.Fatalf("want a validation error, got %v", err)
	}
	return e.Fields
}

func TestMessageValidationMessages(t *testing.T) {
	tests := []struct {
		name string
		edit func(*core.MessageInput)
		want map[string]string
	}{
		{"valid", func(*core.MessageInput) {}, nil},
		{"all empty", func(in *core.MessageInput) { *in = core.MessageInput{} }, map[string]string{
			"title":     "Please enter a title",
			"name":      "Please enter a recipient name",
			"recipient": "Please enter a recipient email address",
			"message":   "Please enter a message",
		}},
		{"blank", func(in *core.MessageInput) { in.Title, in.Body = "   ", "\n\t" }, map[string]string{
			"title": "Please enter a title", "message": "Please enter a message",
		}},
		{"bad address", func(in *core.MessageInput) { in.Recipient = "anna at example" }, map[string]string{
			"recipient": "Please enter a valid email address",
		}},
		{"display name is not an address", func(in *core.MessageInput) { in.Recipient = "Anna <anna@example.com>" }, map[string]string{
			"recipient": "Please enter a valid email address",
		}},
		{"long title", func(in *core.MessageInput) { in.Title = strings.Repeat("é", 201) }, map[string]string{
			"title": "The title must be at most 200 characters",
		}},
		{"200 characters is fine", func(in *core.MessageInput) { in.Title = strings.Repeat("é", 200) }, nil},
		{"long name", func(in *core.MessageInput) { in.Name = strings.Repeat("a", 201) }, map[string]string{
			"name": "The recipient name must be at most 200 characters",
		}},
		{"header injection in name", func(in *core.MessageInput) { in.Name = "Anna\r\nBcc: x@y.z" }, map[string]string{
			"name": "The recipient name must be on one line",
		}},
		{"bidi override in title", func(in *core.MessageInput) { in.Title = "Invoice \u202egpj.exe" }, map[string]string{
			"title": "The title may not contain control, invisible or direction-changing characters",
		}},
		{"control character in name", func(in *core.MessageInput) { in.Name = "Anna\x07" }, map[string]string{
			"name": "The recipient name may not contain control, invisible or direction-changing characters",
		}},
		{"line separator in title", func(in *core.MessageInput) { in.Title = "a\u2028b" }, map[string]string{
			"title": "The title must be on one line",
		}},
		{"a name in another script is fine", func(in *core.MessageInput) { in.Name = "Анна Ω 李" }, nil},
		{"long body", func(in *core.MessageInput) { in.Body = strings.Repeat("a", 100*1024+1) }, map[string]string{
			"message": "The message must be at most 100 KB",
		}},
		{"bad interval", func(in *core.MessageInput) { in.Interval = "3M" }, map[string]string{
			"interval": "Please choose an interval of 1M, 6M or 12M",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validInput()
			tt.edit(&in)
			if got := fieldsOf(t, in.Validate()); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("fields = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRecipientsAreRealMailboxes(t *testing.T) {
	for addr, ok := range map[string]bool{
		"anna@example.com":        true,
		"anna.b+tag@mail.example": true,
		"anna@xn--bcher-kva.de":   true,
		"anna@bücher.de":          true,
		"anna@localhost":          false,
		"anna@mail.localhost":     false,
		"anna@example":            false,
		"anna@[127.0.0.1]":        false,
		"anna@127.0.0.1":          false,
		"anna@-example.com":       false,
		"anna@example..com":       false,
		"anna@example.com.":       false,
		"anna@exa_mple.com":       false,
	} {
		in := validInput()
		in.Recipient = addr
		if got := in.Validate() == nil; got != ok {
			t.Errorf("%q valid: %v, want %v", addr, got, ok)
		}
	}
	// mail.allow_local_recipients (tests, closed installations).
	core.AllowLocalAddresses(true)
	defer core.AllowLocalAddresses(false)
	for _, addr := range []string{"anna@localhost", "anna@[127.0.0.1]", "anna@mailhost"} {
		in := validInput()
		in.Recipient = addr
		if err := in.Validate(); err != nil {
			t.Errorf("%q refused with local recipients allowed: %v", addr, err)
		}
	}
}

func TestMessageUpdateValidatesOnlyWhatItSets(t *testing.T) {
	empty := ""
	if err := (&core.MessageUpdate{}).Validate(); err != nil {
		t.Fatal(err)
	}
	got := fieldsOf(t, (&core.MessageUpdate{Title: &empty}).Validate())
	if !reflect.DeepEqual(got, map[string]string{"title": "Please enter a title"}) {
		t.Fatal(got)
	}
}

func TestNewMessage(t *testing.T) {
	now := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	m := core.NewMessage("u1", validInput(), now, time.UTC)
	if m.Interval != core.Interval1M || !m.IsActive || m.Status != core.StatusScheduled || m.Owner != "u1" {
		t.Fatalf("defaults: %+v", m)
	}
	if want := time.Date(2026, 2, 28, 12, 0, 0, 0, time.UTC); !m.SendDate.Equal(want) {
		t.Fatalf("sendDate %v, want %v", m.SendDate, want)
	}
	if len(m.PostponeCode) != 10 || strings.Trim(m.PostponeCode, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != "" {
		t.Fatalf("postpone code %q", m.PostponeCode)
	}
	if other := core.NewMessage("u1", validInput(), now, time.UTC); other.PostponeCode == m.PostponeCode || other.ID == m.ID {
		t.Fatal("codes and ids must be random")
	}
	in := validInput()
	in.Interval = core.Interval12M
	if m := core.NewMessage("u1", in, now, time.UTC); !m.SendDate.Equal(time.Date(2027, 1, 31, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("12M sendDate %v", m.SendDate)
	}
}

func TestOnlyAnIntervalChangeMovesSendDate(t *testing.T) {
	created := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	m := core.NewMessage("u1", validInput(), created, time.UTC)
	original := m.SendDate
	later := created.Add(72 * time.Hour)

	title, same := "New title", core.Interval1M
	m.Apply(core.MessageUpdate{Title: &title, Interval: &same}, later, time.UTC)
	if !m.SendDate.Equal(original) || m.Title != title {
		t.Fatalf("an edit without a new interval moved sendDate to %v", m.SendDate)
	}
	six := core.Interval6M
	m.Apply(core.MessageUpdate{Interval: &six}, later, time.UTC)
	if want := core.AddMonths(later, 6, time.UTC); !m.SendDate.Equal(want) {
		t.Fatalf("sendDate %v, want %v", m.SendDate, want)
	}
}

func TestPostpone(t *testing.T) {
	berlin := mustLoc(t, "Europe/Berlin")
	created := time.Date(2026, 3, 1, 9, 0, 0, 0, berlin)
	m := core.NewMessage("u1", validInput(), created, berlin)
	m.Status, m.RemindersSent = core.StatusReminded, 1

	// Later the same day: the target is the same calendar day, nothing changes.
	if m.Postpone(created.Add(8*time.Hour), berlin) {
		t.Fatal("postponing on the same day must be a no-op")
	}
	if m.Status != core.StatusReminded {
		t.Fatal("a no-op changes nothing")
	}
	// Two weeks later: now + 1 month, and reminders start over.
	now := created.Add(14 * 24 * time.Hour)
	if !m.Postpone(now, berlin) {
		t.Fatal("postpone should move the date")
	}
	if want := core.AddMonths(now, 1, berlin); !m.SendDate.Equal(want) {
		t.Fatalf("sendDate %v, want %v", m.SendDate, want)
	}
	if m.Status != core.StatusScheduled || m.RemindersSent != 0 {
		t.Fatalf("status %s, reminders %d", m.Status, m.RemindersSent)
	}
}

func TestReschedule(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := core.NewMessage("u1", validInput(), now, time.UTC)
	offsets := []time.Duration{core.ReminderLeadTime}
	m.Reschedule(offsets)
	if !m.DueAt.Equal(m.SendDate) || !m.RemindAt.Equal(m.SendDate.Add(-10*24*time.Hour)) {
		t.Fatalf("due %v remind %v", m.DueAt, m.RemindAt)
	}
	m.RemindersSent = 1 // the ladder's steps follow: 3 days, 1 day, 2 hours
	m.Reschedule(offsets)
	if !m.RemindAt.Equal(m.SendDate.Add(-72 * time.Hour)) {
		t.Fatalf("the 3-day step: remind %v", m.RemindAt)
	}
	m.RemindersSent = 4
	m.Reschedule(offsets)
	if !m.RemindAt.IsZero() {
		t.Fatal("each step once per sendDate")
	}
	m.IsActive = false
	m.Reschedule(offsets)
	if !m.DueAt.IsZero() || !m.RemindAt.IsZero() || m.DisplayStatus() != core.StatusPaused {
		t.Fatal("a paused message is never due")
	}
	m.IsActive, m.Status = true, core.StatusDelivered
	m.Reschedule(offsets)
	if !m.DueAt.IsZero() {
		t.Fatal("a delivered message is never due")
	}
}

func TestPostponeCodeCheck(t *testing.T) {
	m := core.NewMessage("u1", validInput(), time.Now(), time.UTC)
	if !m.CheckPostponeCode(m.PostponeCode) || m.CheckPostponeCode("") || m.CheckPostponeCode(strings.ToLower(m.PostponeCode)+"x") {
		t.Fatal("postpone code check")
	}
}

func TestWebhookURLValidation(t *testing.T) {
	for url, ok := range map[string]bool{
		"":                                true,
		"https://hooks.example.com/x?y=1": true,
		"http://hooks.example.com":        true,
		"ftp://hooks.example.com":         false,
		"hooks.example.com/x":             false,
		"https://user:pw@hooks.example":   false,
		"https://" + strings.Repeat("a", 2048) + ".example": false,
	} {
		in := validInput()
		in.WebhookURL = url
		got := fieldsOf(t, in.Validate())
		if (got == nil) != ok {
			t.Errorf("%q: fields %v", url, got)
		}
		if !ok && got["webhookUrl"] != "Please enter a valid http or https URL of at most 2048 characters" {
			t.Errorf("%q: message %q", url, got["webhookUrl"])
		}
		up := core.MessageUpdate{WebhookURL: &url}
		if (up.Validate() == nil) != ok {
			t.Errorf("update %q", url)
		}
	}
}

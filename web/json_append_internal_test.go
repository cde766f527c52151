package web

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The append functions write exactly what encoding/json writes.
func FuzzAppendMessageJSON(f *testing.F) {
	for _, s := range []string{
		"", "plain", `"quoted" \ back\slash`, "<b>&amp;</b>", "\x00\x01\x08\x0c\n\r\t\x1f\x7f",
		"\xff\xfe broken \xc3\x28", "é ü 中文 🎉", "\u2028\u2029", "\ufffd", "\xed\xa0\x80",
	} {
		f.Add(s, int64(1795301624918), true)
	}
	f.Fuzz(func(t *testing.T, s string, ms int64, flag bool) {
		at := time.UnixMilli(ms)
		m := &core.Message{
			ID: s, Owner: s + "o", Title: s, Name: s, Recipient: s, Body: s + s,
			Interval: core.Interval(s), SendDate: at, IsActive: flag, Featured: !flag, CreatedAt: at,
			Status: core.MessageStatus(s), PostponeCode: "SECRET", LastError: s + "e",
		}
		if flag {
			m.WebhookURL, m.ReminderSentAt, m.DeliveredAt = s, at, at.Add(time.Hour)
			m.Status = core.StatusFailed // with a failure reason
			m.Warnings = []core.Warning{{Code: s, Field: s + "f", Message: s + "m"}, {Code: s, Message: s}}
			m.Recipients = []core.Recipient{{Name: s, Address: s, Bounce: core.RecipientBounce{At: at, Reason: s + "r", Email: core.BounceNotice}}}
		}
		switch ms % 3 { // sealed: with its envelope and hint, and as an operator reads it
		case 1:
			m.SetSealed(core.SealedLetter{Envelope: s, Hint: s + "h"})
		case 2:
			m.SetSealed(core.SealedLetter{})
		}
		for _, ms := range [][]*core.Message{{}, {m}, {m, m}} {
			want, err := json.Marshal(messagesJSON(ms))
			if err != nil {
				t.Fatal(err)
			}
			if got := appendMessagesJSON(nil, ms); string(got) != string(want) {
				t.Fatalf("appended\n%s\nencoding/json\n%s", got, want)
			}
		}
	})
}

// messagesJSON is the list as encoding/json marshals it: the reference.
func messagesJSON(ms []*core.Message) []*MessageJSON {
	out := make([]*MessageJSON, len(ms))
	for i, m := range ms {
		out[i] = NewMessageJSON(m)
	}
	return out
}

// appendSessionUserJSON writes exactly what encoding/json writes for
// NewSessionUserJSON.
func FuzzAppendSessionUserJSON(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \ back\slash`, "<b>&amp;</b>", "\x00\x1f\x7f", "\xff broken", "é 中文 🎉", "\u2028"} {
		f.Add(s, int64(1795301624918), 3, true)
	}
	f.Fuzz(func(t *testing.T, s string, ms int64, n int, flag bool) {
		su := &core.SessionUser{
			UID: s, Email: s + "@", EmailVerified: flag, Name: s, Picture: s, PlanID: core.PlanID(s), PlanIsActive: !flag,
			Timezone: s, StripeSubscriptionStatus: s, MessageLimit: n, CanAddMessage: flag, RecipientLimit: n,
			ReminderAddress: s,
		}
		if flag {
			su.Providers, su.ReminderLadder, su.HoldUntil = []string{s, "password"}, []string{}, time.UnixMilli(ms)
		} else {
			su.ReminderLadder = []string{s}
		}
		want, err := json.Marshal(NewSessionUserJSON(su))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendSessionUserJSON(nil, su); string(got) != string(want) {
			t.Fatalf("appended\n%s\nencoding/json\n%s", got, want)
		}
	})
}

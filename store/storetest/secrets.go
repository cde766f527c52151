package storetest

import (
	"testing"

	"github.com/sendlater/sendlater/core"
)

// PersonalDataSecrets are the texts MustSeedPersonalData stores, which no
// byte of a store may hold in clear.
var PersonalDataSecrets = []string{"PLAINTEXT-ACCOUNT-5e1d", "PLAINTEXT-CONTACT-1b7e", "plaintext-contact-8d2f",
	"PLAINTEXT-ASKS-6a0c", "PLAINTEXT-LINK-3c9a", "plaintext-outbox-6e2b", "plaintext-second-4f7a",
	"PLAINTEXT-DRAFT-TITLE-2d8e", "PLAINTEXT-DRAFT-BODY-9a41", "plaintext-draft-5c3b", "PLAINTEXTTOTPSECRET7Q2Z"}

// MustSeedPersonalData stores an account's name, a contact submission and
// a queued email with a secret link, for the backends' tests that look for
// them in clear.
func MustSeedPersonalData(tb testing.TB, s Stores) {
	tb.Helper()
	ann := &core.User{Email: "ann@example.com", Name: "PLAINTEXT-ACCOUNT-5e1d", CreatedAt: Epoch,
		ReminderAddress: "plaintext-second-4f7a@example.com", TOTPSecret: "PLAINTEXTTOTPSECRET7Q2Z"}
	must(tb, s.Users.CreateUser(ctx, ann))
	if s.Drafts != nil {
		must(tb, s.Drafts.PutDraft(ctx, &core.Draft{Owner: ann.ID, Key: core.DraftNew, Title: "PLAINTEXT-DRAFT-TITLE-2d8e",
			Recipients: []core.DraftRecipient{{Name: "Bo", Address: "plaintext-draft-5c3b@example.com"}},
			Body:       "PLAINTEXT-DRAFT-BODY-9a41", UpdatedAt: Epoch}))
	}
	must(tb, s.Contacts.CreateContact(ctx, &core.ContactSubmission{Name: "PLAINTEXT-CONTACT-1b7e",
		Email: "plaintext-contact-8d2f@example.com", Message: "PLAINTEXT-ASKS-6a0c", CreatedAt: Epoch}))
	must(tb, s.Delivery.AddOutboxItem(ctx, &core.OutboxItem{ID: core.NewID(), Kind: core.OutboxEmail,
		Recipient: "plaintext-outbox-6e2b@example.com", NextAttemptAt: Epoch, Email: &core.Email{
			To: []core.Address{{Address: "plaintext-outbox-6e2b@example.com"}}, Subject: "Reset",
			Text: "https://sendlater.test/firebase-action?oobCode=PLAINTEXT-LINK-3c9a"}}))
}

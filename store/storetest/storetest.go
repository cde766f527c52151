// Package storetest is the contract every store backend passes: the same
// behaviour, the same error codes, the same index semantics. A backend's
// test calls Run with a function that opens a fresh, empty store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Stores is one open backend under test.
type Stores struct {
	Users       core.UserStore
	Messages    core.MessageStore
	Sessions    core.SessionStore
	Tokens      core.AccessTokenStore
	ActionCodes core.ActionCodeStore
	Contacts    core.ContactStore
	// Delivery is the delivery pass's store; nil skips its tests.
	Delivery core.DeliveryStore
	// Billing is billing's store; nil skips its tests.
	Billing core.BillingStore
	// Links is social sign-in's store; nil skips its tests.
	Links core.ProviderLinkStore
	// Health keeps the processes' delivery health.
	Health core.HealthStore
	// Watcher tells of the owners' changes; nil skips its tests.
	Watcher core.MessageWatcher
	// Limits keeps the limits' events; nil skips its tests.
	Limits core.LimitStore
	// PageViews keeps the page-view counters; nil skips their tests.
	PageViews core.PageViewStore
	// Audit keeps what operators do; nil skips its tests.
	Audit core.AuditStore
	// Drafts keeps the authors' drafts; nil skips their tests.
	Drafts core.DraftStore
	// Devices keeps where users signed in; nil skips its tests.
	Devices core.DeviceBookStore
	// Passkeys keeps users' passkeys; nil skips their tests.
	Passkeys core.PasskeyStore
	// DeviceCodes keeps the device flow's requests; nil skips their tests.
	DeviceCodes core.DeviceCodeStore
	// Suppressions keeps the suppression list; nil skips its tests.
	Suppressions core.SuppressionStore
	// Attachments keeps the records of messages' files; nil skips their
	// tests.
	Attachments core.AttachmentStore
	// Clock stamps what the suite writes; nil: a ManualClock at Epoch.
	Clock *core.ManualClock
	// Reminders are the offsets the backend reschedules with; nil: the
	// default, one reminder core.ReminderLeadTime ahead.
	Reminders []time.Duration
}

// Epoch is where the suite's default clock starts. Whole seconds, so a
// backend that keeps microseconds passes too.
var Epoch = time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)

// Run runs the contract against fresh stores from open. open should register
// its own cleanup (t.Cleanup) for what it opens.
func Run(t *testing.T, open func(t *testing.T) Stores) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s Stores)
	}{
		{"Users", testUsers},
		{"UserEmailUnique", testUserEmailUnique},
		{"UserEmailChange", testUserEmailChange},
		{"UserUpdateAborts", testUserUpdateAborts},
		{"UserHold", testUserHold},
		{"UserReminderLadder", testUserReminderLadder},
		{"ListUsers", testListUsers},
		{"UserDisabled", testUserDisabled},
		{"UserSecondFactor", testUserSecondFactor},
		{"Audit", testAudit},
		{"Messages", testMessages},
		{"MessageOwnerMissing", testMessageOwnerMissing},
		{"MessageUpdateAborts", testMessageUpdateAborts},
		{"ListMessages", testListMessages},
		{"ListMessagesAfter", testListMessagesAfter},
		{"PlanLimitAtomic", testPlanLimitAtomic},
		{"CreateCheckAborts", testCreateCheckAborts},
		{"IdempotencyKey", testIdempotencyKey},
		{"DueIndex", testDueIndex},
		{"DueOrderAndLimit", testDueOrderAndLimit},
		{"DueQueue", needsDelivery(testDueQueue)},
		{"ReminderIndex", testReminderIndex},
		{"Sessions", testSessions},
		{"ListUserSessions", testListUserSessions},
		{"DeviceBooks", testDeviceBooks},
		{"Passkeys", testPasskeys},
		{"DeviceCodes", testDeviceCodes},
		{"DeviceCodeExpiry", testDeviceCodeExpiry},
		{"Suppressions", testSuppressions},
		{"BounceMarks", testBounceMarks},
		{"BounceMarksConcurrent", testBounceMarksConcurrent},
		{"SessionRotation", testSessionRotation},
		{"DeleteUserSessions", testDeleteUserSessions},
		{"DeleteExpiredSessions", testDeleteExpiredSessions},
		{"AccessTokens", testAccessTokens},
		{"AccessTokenScopes", testAccessTokenScopes},
		{"ActionCodes", testActionCodes},
		{"ActionCodeExpiry", testActionCodeExpiry},
		{"Contacts", testContacts},
		{"DeleteUserCascades", testDeleteUserCascades},
		{"ReadsAfterChanges", testReadsAfterChanges},
		{"ClaimDeliveries", needsDelivery(testClaimDeliveries)},
		{"ClaimReminders", needsDelivery(testClaimReminders)},
		{"SettleMessage", needsDelivery(testSettleMessage)},
		{"Recipients", needsDelivery(testRecipients)},
		{"MessageEvents", needsDelivery(testMessageEvents)},
		{"Outbox", needsDelivery(testOutbox)},
		{"Refusals", needsDelivery(testRefusals)},
		{"ReadForSend", needsDelivery(testReadForSend)},
		{"WebhookSecrets", needsDelivery(testWebhookSecrets)},
		{"BillingCustomers", needsBilling(testBillingCustomers)},
		{"BillingEvents", needsBilling(testBillingEvents)},
		{"LinksCreateUser", needsLinks(testLinksCreateUser)},
		{"LinksLinkAndUnlink", needsLinks(testLinksLinkAndUnlink)},
		{"LinksUpdate", needsLinks(testLinksUpdate)},
		{"LinksDeleteUser", needsLinks(testLinksDeleteUser)},
		{"LinksClaimAccount", needsLinks(testLinksClaimAccount)},
		{"ProcessHealth", testProcessHealth},
		{"ErrorReplies", testErrorReplies},
		{"WatchUser", needsWatcher(testWatchUser)},
		{"LimitEvents", needsLimits(testLimitEvents)},
		{"LimitEventsConcurrent", needsLimits(testLimitEventsConcurrent)},
		{"LimitTakeConcurrent", needsLimits(testLimitTakeConcurrent)},
		{"PageViews", needsPageViews(testPageViews)},
		{"PageViewsConcurrent", needsPageViews(testPageViewsConcurrent)},
		{"Drafts", needsDrafts(testDrafts)},
		{"DraftsGoWithMessageAndUser", needsDrafts(testDraftsGoWithMessageAndUser)},
		{"Attachments", needsAttachments(testAttachments)},
		{"AttachmentQuota", needsAttachments(testAttachmentQuota)},
		{"OwnerAttachments", needsAttachments(testOwnerAttachments)},
		{"AttachmentQuotaRace", needsAttachments(testAttachmentQuotaRace)},
		{"AttachmentsGoWithMessageAndUser", needsAttachments(testAttachmentsGoWithMessageAndUser)},
		{"AttachmentDownloads", needsAttachments(testAttachmentDownloads)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			if s.Clock == nil {
				s.Clock = core.NewManualClock(Epoch)
			}
			if s.Reminders == nil {
				s.Reminders = []time.Duration{core.ReminderLeadTime}
			}
			tc.fn(t, s)
		})
	}
}

var ctx = context.Background()

// allow is a plan check that lets every create through.
func allow(*core.User, bool) error { return nil }

// MustCreateUser creates a user with email, stamped with the clock.
func MustCreateUser(tb testing.TB, s Stores, email string) *core.User {
	tb.Helper()
	now := s.Clock.Now()
	u := &core.User{
		ID: core.NewID(), Email: email, Name: "Ada " + email, Timezone: "Europe/Berlin",
		PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", Providers: []string{core.ProviderPassword},
		CreatedAt: now, UpdatedAt: now,
	}
	if err := s.Users.CreateUser(ctx, u); err != nil {
		tb.Fatalf("CreateUser(%s): %v", email, err)
	}
	return u
}

// MustCreateMessage creates a message of owner as MessageService would, with
// the clock's time as createdAt.
func MustCreateMessage(tb testing.TB, s Stores, owner string, iv core.Interval) *core.Message {
	tb.Helper()
	m := NewMessage(s, owner, iv)
	if err := s.Messages.CreateMessage(ctx, m, allow); err != nil {
		tb.Fatalf("CreateMessage: %v", err)
	}
	return m
}

// NewMessage builds (without storing) a valid message of owner.
func NewMessage(s Stores, owner string, iv core.Interval) *core.Message {
	n := core.RandomString(6)
	return core.NewMessage(owner, core.MessageInput{
		Title:     "Title " + n,
		Name:      "Grace " + n,
		Recipient: "grace-" + n + "@example.com",
		Body:      "Dear Grace,\nthe secret body " + n + " for the future.",
		Interval:  iv,
	}, s.Clock.Now(), time.UTC)
}

// wantCode fails unless err carries code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := core.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// diffMessage describes how got differs from want, or "".
func diffMessage(got, want *core.Message) string {
	type field struct {
		name      string
		got, want any
	}
	var diffs []string
	for _, f := range []field{
		{"ID", got.ID, want.ID}, {"Owner", got.Owner, want.Owner}, {"Title", got.Title, want.Title},
		{"Name", got.Name, want.Name}, {"Recipient", got.Recipient, want.Recipient}, {"Body", got.Body, want.Body},
		{"Interval", got.Interval, want.Interval}, {"IsActive", got.IsActive, want.IsActive},
		{"PostponeCode", got.PostponeCode, want.PostponeCode}, {"Featured", got.Featured, want.Featured},
		{"WebhookURL", got.WebhookURL, want.WebhookURL}, {"Status", got.Status, want.Status},
		{"RemindersSent", got.RemindersSent, want.RemindersSent}, {"Attempts", got.Attempts, want.Attempts},
		{"LastError", got.LastError, want.LastError}, {"EmailMessageID", got.EmailMessageID, want.EmailMessageID},
		{"IdempotencyKey", got.IdempotencyKey, want.IdempotencyKey},
	} {
		if f.got != f.want {
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", f.name, f.got, f.want))
		}
	}
	if !core.SameRecipients(got.Recipients, want.Recipients) {
		diffs = append(diffs, fmt.Sprintf("Recipients = %+v, want %+v", got.Recipients, want.Recipients))
	}
	for _, f := range []struct {
		name      string
		got, want time.Time
	}{
		{"SendDate", got.SendDate, want.SendDate}, {"CreatedAt", got.CreatedAt, want.CreatedAt},
		{"UpdatedAt", got.UpdatedAt, want.UpdatedAt}, {"ReminderSentAt", got.ReminderSentAt, want.ReminderSentAt},
		{"DeliveredAt", got.DeliveredAt, want.DeliveredAt}, {"NextAttemptAt", got.NextAttemptAt, want.NextAttemptAt},
		{"LeaseUntil", got.LeaseUntil, want.LeaseUntil}, {"DueAt", got.DueAt, want.DueAt},
		{"RemindAt", got.RemindAt, want.RemindAt},
	} {
		if !f.got.Equal(f.want) { // the instant, whatever the location
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", f.name, f.got, f.want))
		}
	}
	return strings.Join(diffs, "; ")
}

func wantMessage(tb testing.TB, got, want *core.Message) {
	tb.Helper()
	if d := diffMessage(got, want); d != "" {
		tb.Fatalf("message %s differs: %s", want.ID, d)
	}
}

// ids lists the messages' ids in order.
func ids(ms []*core.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func wantIDs(tb testing.TB, what string, got []*core.Message, want ...string) {
	tb.Helper()
	g := ids(got)
	if fmt.Sprint(g) != fmt.Sprint(want) {
		tb.Fatalf("%s = %v, want %v", what, g, want)
	}
}

// errAbort is returned by callbacks to check that it passes through.
var errAbort = errors.New("storetest: callback aborts")

package core

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Store is every store interface of core that one backend implements
// (store/bolt, store/postgres): what the services are wired over.
type Store interface {
	UserStore
	MessageStore
	DraftStore
	SessionStore
	AccessTokenStore
	ActionCodeStore
	ContactStore
	DeliveryStore
	BillingStore
	ProviderLinkStore
	LimitStore
	PageViewStore
	MessageWatcher
	HealthStore
	AuditStore
	DeviceBookStore
	PasskeyStore
	DeviceCodeStore
	SuppressionStore
	AttachmentStore
	AttachmentDownloadStore
	Backuper
	DueQueue
}

// Backuper writes a consistent copy of the whole store to w.
type Backuper interface {
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// Admin is what operators do from the CLI, in the roles each command names
// (AdminUsers, AdminMessages, AdminDelivery, AdminBilling, AdminAudit).
// AdminService implements it over the stores; the web package's client
// implements it over the admin socket.
type Admin interface {
	AdminUsers
	AdminMessages
	AdminDelivery
	AdminBilling
	AdminAudit
	AdminSuppressions
	AdminFiles
}

// AdminUsers manages accounts (core/admin_users.go) and reads the contact
// form's submissions.
type AdminUsers interface {
	ListUsers(ctx context.Context, f UserFilter) ([]*User, int, error)
	// FindUser finds a user by id or email.
	FindUser(ctx context.Context, idOrEmail string) (*User, error)
	// SetPlan grants plan with a subscription status, without Stripe.
	SetPlan(ctx context.Context, idOrEmail string, plan PlanID, status string) (*User, error)
	// LiftHold ends the user's hold now (core/message_hold.go), as the author's
	// early end does.
	LiftHold(ctx context.Context, idOrEmail string) (*User, error)
	CreateUser(ctx context.Context, in NewUser) (*CreatedUser, error)
	SetUserDisabled(ctx context.Context, idOrEmail string, disabled bool) (*User, error)
	// ResetSecondFactor removes the user's authenticator app and recovery
	// codes (audited; the owner is emailed).
	ResetSecondFactor(ctx context.Context, idOrEmail string) (*User, error)
	DeleteUser(ctx context.Context, idOrEmail string) error
	ExportUser(ctx context.Context, idOrEmail string) (*AccountExport, error)
	ListContacts(ctx context.Context, limit int) ([]*ContactSubmission, error)
}

// AdminMessages reads and steers messages. No message it returns carries
// a body but RevealMessages'.
type AdminMessages interface {
	// ListMessages lists messages, of one user (id or email) or all.
	ListMessages(ctx context.Context, user string, f MessageFilter) ([]*Message, int, error)
	FindMessage(ctx context.Context, id string) (*Message, error)
	// MessageOutbox is the outbox item that follows a message (its webhook
	// call or its author's failure notice) while it waits or after it
	// failed for good; ENotFound when none does.
	MessageOutbox(ctx context.Context, id string) (*OutboxItem, error)
	// MessageEvents is a message's timeline, oldest first.
	MessageEvents(ctx context.Context, id string) ([]*MessageEvent, error)
	// RescheduleMessage moves a message's sendDate to at; SetMessageActive
	// pauses or resumes it; PostponeMessage postpones it by its interval
	// and DeleteMessage deletes it.
	RescheduleMessage(ctx context.Context, id string, at time.Time) (*Message, error)
	SetMessageActive(ctx context.Context, id string, active bool) (*Message, error)
	PostponeMessage(ctx context.Context, id string) (*Message, error)
	DeleteMessage(ctx context.Context, id string) error
	// RevealMessages returns the messages ids with their bodies, each
	// recorded in the audit log as read first: the one way an operator
	// reads a body.
	RevealMessages(ctx context.Context, ids []string) ([]*Message, error)
}

// AdminDelivery runs and watches the delivery, and copies the store.
type AdminDelivery interface {
	// SendDue runs one delivery pass; PreviewDue lists what a pass at the
	// given time would send, sending nothing.
	SendDue(ctx context.Context) (PassResult, error)
	PreviewDue(ctx context.Context, at time.Time) ([]DueSend, error)
	// DeliverNow makes a message due now and runs a pass.
	DeliverNow(ctx context.Context, id string) (*Message, PassResult, error)
	// Passes are the last delivery passes of the running server's scheduler
	// (none when the store is opened directly).
	Passes(ctx context.Context) ([]PassResult, error)
	// DeliveryHealth is the delivery's health over every process that
	// records its passes in the store: the cluster's with a shared store,
	// the running server's with one it holds alone.
	DeliveryHealth(ctx context.Context) (DeliveryHealth, error)
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// AdminBilling reconciles subscriptions with the payment provider.
type AdminBilling interface {
	// SyncBilling re-reads from the payment provider the subscriptions of
	// one user (id or email) or, with "", of every user with a customer,
	// stores them and returns what it found for each.
	SyncBilling(ctx context.Context, idOrEmail string) ([]BillingChange, error)
}

// AdminAudit reads the audit log.
type AdminAudit interface {
	// ListAudit lists the audit log from since, oldest first (limit 0:
	// all).
	ListAudit(ctx context.Context, since time.Time, limit int) ([]*AuditEntry, error)
}

// AdminService implements Admin over the stores.
type AdminService struct {
	// Files removes the bytes of deleted messages' and accounts' files;
	// nil: none.
	Files FileBytes
	// Collector collects the files' orphans, with StaleUploads (zero:
	// DefaultStaleUpload); nil: no files in this process.
	Collector    FileCollector
	StaleUploads time.Duration
	Users        UserStore
	Messages     MessageStore
	Backuper     Backuper
	Prices       PriceMap
	Clock        Clock
	// Delivery runs passes for SendDue and DeliverNow; nil refuses them.
	Delivery *Delivery
	// Billing syncs subscriptions; nil: payments are not configured.
	Billing *BillingService
	// Auth makes, ends and exports accounts; Contacts are the contact
	// form's submissions; Audit keeps what operators do.
	Auth     *Auth
	Contacts ContactStore
	Audit    AuditStore
	// Suppressions is the suppression list; nil refuses its commands.
	Suppressions SuppressionStore
}

func (s *AdminService) ListUsers(ctx context.Context, f UserFilter) ([]*User, int, error) {
	return s.Users.ListUsers(ctx, f)
}

func (s *AdminService) FindUser(ctx context.Context, idOrEmail string) (*User, error) {
	if strings.Contains(idOrEmail, "@") {
		return s.Users.FindUserByEmail(ctx, idOrEmail)
	}
	return s.Users.FindUserByID(ctx, idOrEmail)
}

func (s *AdminService) SetPlan(ctx context.Context, idOrEmail string, plan PlanID, status string) (*User, error) {
	if _, ok := FindPlan(plan); !ok {
		return nil, ValidationError(map[string]string{"plan": "The plan must be starter, pro or business"})
	}
	u, err := s.FindUser(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	u, err = s.Users.UpdateUser(ctx, u.ID, func(u *User) error {
		if plan == PlanStarter {
			u.StripePriceID, u.StripeSubscriptionStatus = "", ""
		} else {
			u.StripePriceID, u.StripeSubscriptionStatus = s.Prices.PriceFor(plan), status
		}
		u.UpdatedAt = s.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, s.audit(ctx, "users.set-plan", u.Email, fmt.Sprintf("%s (%s)", plan, status))
}

func (s *AdminService) ListMessages(ctx context.Context, user string, f MessageFilter) ([]*Message, int, error) {
	if user != "" {
		u, err := s.FindUser(ctx, user)
		if err != nil {
			return nil, 0, err
		}
		f.Owner = u.ID
	}
	if f.Status != "" && !ValidStatus(f.Status) {
		return nil, 0, ValidationError(map[string]string{"status": "The status must be scheduled, reminded, sending, delivered, failed or paused"})
	}
	filtered := f.Status != "" || !f.DueBefore.IsZero()
	page := f
	if filtered {
		page.Offset, page.Limit = 0, 0 // kept here, then paged
	}
	ms, total, err := s.Messages.ListMessages(ctx, page)
	if err != nil {
		return nil, 0, err
	}
	if filtered {
		kept := ms[:0]
		for _, m := range ms {
			if f.Keeps(m) {
				kept = append(kept, m)
			}
		}
		total, ms = len(kept), kept[min(f.Offset, len(kept)):]
		if f.Limit > 0 && len(ms) > f.Limit {
			ms = ms[:f.Limit]
		}
	}
	if err := JoinBounceMarks(ctx, s.Messages, ms...); err != nil {
		return nil, 0, err
	}
	for i, m := range ms {
		ms[i] = withoutBody(m)
	}
	return ms, total, nil
}

func (s *AdminService) FindMessage(ctx context.Context, id string) (*Message, error) {
	m, err := s.Messages.FindMessageByID(ctx, id)
	if err == nil {
		err = JoinBounceMarks(ctx, s.Messages, m)
	}
	return bodyless(m, err)
}

func (s *AdminService) MessageOutbox(ctx context.Context, id string) (*OutboxItem, error) {
	d, err := s.delivery()
	if err != nil {
		return nil, err
	}
	return d.Store.FindOutboxItem(ctx, id)
}

func (s *AdminService) MessageEvents(ctx context.Context, id string) ([]*MessageEvent, error) {
	if _, err := s.Messages.FindMessageByID(ctx, id); err != nil {
		return nil, err
	}
	return s.Messages.ListMessageEvents(ctx, id)
}

func (s *AdminService) Backup(ctx context.Context, w io.Writer) (int64, error) {
	return s.Backuper.Backup(ctx, w)
}

func (s *AdminService) SyncBilling(ctx context.Context, idOrEmail string) ([]BillingChange, error) {
	if s.Billing == nil {
		return nil, errPaymentsOff()
	}
	changes, err := s.Billing.Sync(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	return changes, s.audit(ctx, "users.sync-billing", idOrEmail, fmt.Sprintf("%d users re-read from the payment provider", len(changes)))
}

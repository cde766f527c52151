package web

import "github.com/sendlater/sendlater/core"

// PassJSON is what one delivery pass did (POST /admin/send-due, GET
// /admin/passes, `send-due --json`).
type PassJSON struct {
	Started   int64    `json:"started"`
	Finished  int64    `json:"finished"`
	Delivered int      `json:"delivered"`
	Reminded  int      `json:"reminded"`
	Retried   int      `json:"retried"`
	Failed    int      `json:"failed"`
	Skipped   int      `json:"skipped"`
	Webhooks  int      `json:"webhooks"`
	Errors    []string `json:"errors,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// NewPassJSON is r on the wire.
func NewPassJSON(r core.PassResult) PassJSON {
	return PassJSON{
		Started: millis(r.Started), Finished: millis(r.Finished), Delivered: r.Delivered, Reminded: r.Reminded,
		Retried: r.Retried, Failed: r.Failed, Skipped: r.Skipped, Webhooks: r.Webhooks, Errors: r.Errors, Error: r.Error,
	}
}

// Core is the pass j describes.
func (j PassJSON) Core() core.PassResult {
	return core.PassResult{
		Started: fromMillis(j.Started), Finished: fromMillis(j.Finished), Delivered: j.Delivered, Reminded: j.Reminded,
		Retried: j.Retried, Failed: j.Failed, Skipped: j.Skipped, Webhooks: j.Webhooks, Errors: j.Errors, Error: j.Error,
	}
}

// DueSendJSON is one email a pass would send (GET /admin/due).
type DueSendJSON struct {
	Kind      string `json:"kind"` // "delivery" or "reminder"
	MessageID string `json:"messageId"`
	Owner     string `json:"owner"`
	To        string `json:"to"`
	DueAt     int64  `json:"dueAt"`
}

// NewDueSendJSON is d on the wire.
func NewDueSendJSON(d core.DueSend) DueSendJSON {
	return DueSendJSON{Kind: d.Kind, MessageID: d.MessageID, Owner: d.Owner, To: d.To, DueAt: millis(d.DueAt)}
}

// Core is the send j describes.
func (j DueSendJSON) Core() core.DueSend {
	return core.DueSend{Kind: j.Kind, MessageID: j.MessageID, Owner: j.Owner, To: j.To, DueAt: fromMillis(j.DueAt)}
}

// DeliveryHealthJSON is the delivery's health (GET /admin/health, `sendlater
// status --json`).
type DeliveryHealthJSON struct {
	State     string              `json:"state"` // ok, stalled or off
	LastPass  int64               `json:"lastPass,omitempty"`
	Processes []ProcessHealthJSON `json:"processes"`
}

// ProcessHealthJSON is one process's record of its passes.
type ProcessHealthJSON struct {
	Process   string   `json:"process"`
	Scheduler bool     `json:"scheduler"`
	StartedAt int64    `json:"startedAt"`
	SeenAt    int64    `json:"seenAt"`
	LastOK    int64    `json:"lastOk,omitempty"`
	LastPass  PassJSON `json:"lastPass"`
}

// NewDeliveryHealthJSON is h on the wire.
func NewDeliveryHealthJSON(h core.DeliveryHealth) DeliveryHealthJSON {
	return DeliveryHealthJSON{
		State: h.State, LastPass: millis(h.LastPass),
		Processes: each(h.Processes, func(p *core.ProcessHealth) ProcessHealthJSON {
			return ProcessHealthJSON{
				Process: p.Process, Scheduler: p.Scheduler, StartedAt: millis(p.StartedAt), SeenAt: millis(p.SeenAt),
				LastOK: millis(p.LastOK), LastPass: NewPassJSON(p.LastPass),
			}
		}),
	}
}

// Core is the health j describes.
func (j DeliveryHealthJSON) Core() core.DeliveryHealth {
	return core.DeliveryHealth{
		State: j.State, LastPass: fromMillis(j.LastPass),
		Processes: each(j.Processes, func(p ProcessHealthJSON) *core.ProcessHealth {
			return &core.ProcessHealth{
				Process: p.Process, Scheduler: p.Scheduler, StartedAt: fromMillis(p.StartedAt), SeenAt: fromMillis(p.SeenAt),
				LastOK: fromMillis(p.LastOK), LastPass: p.LastPass.Core(),
			}
		}),
	}
}

// BillingChangeJSON is what a billing sync found for one user (POST
// /admin/billing/sync, `users sync-billing --json`): the price, status and
// plan before and now.
type BillingChangeJSON struct {
	UserID        string      `json:"userId"`
	Email         string      `json:"email"`
	CustomerID    string      `json:"customerId"`
	OldPriceID    string      `json:"oldPriceId"`
	OldStatus     string      `json:"oldStatus"`
	OldPlan       core.PlanID `json:"oldPlan"`
	OldPlanActive bool        `json:"oldPlanActive"`
	PriceID       string      `json:"priceId"`
	Status        string      `json:"status"`
	Plan          core.PlanID `json:"plan"`
	PlanActive    bool        `json:"planActive"`
	Changed       bool        `json:"changed"`
}

// NewBillingChangeJSON is c on the wire.
func NewBillingChangeJSON(c core.BillingChange) BillingChangeJSON {
	return BillingChangeJSON{
		UserID: c.UserID, Email: c.Email, CustomerID: c.CustomerID,
		OldPriceID: c.OldPriceID, OldStatus: c.OldStatus, OldPlan: c.OldPlan, OldPlanActive: c.OldPlanActive,
		PriceID: c.PriceID, Status: c.Status, Plan: c.Plan, PlanActive: c.PlanActive, Changed: c.Changed(),
	}
}

// Core is the change j describes.
func (j BillingChangeJSON) Core() core.BillingChange {
	return core.BillingChange{
		UserID: j.UserID, Email: j.Email, CustomerID: j.CustomerID,
		OldPriceID: j.OldPriceID, OldStatus: j.OldStatus, OldPlan: j.OldPlan, OldPlanActive: j.OldPlanActive,
		PriceID: j.PriceID, Status: j.Status, Plan: j.Plan, PlanActive: j.PlanActive,
	}
}

// OutboxItemJSON is an outbox item as the admin socket shows it (GET
// /admin/messages/{id}/outbox): what follows a message, never the email
// it may carry.
type OutboxItemJSON struct {
	ID            string `json:"id"`
	Kind          string `json:"kind"` // "webhook", "failure-notice", "email", "password-reset", "reminder-copy"
	MessageID     string `json:"messageId,omitempty"`
	Attempts      int    `json:"attempts"`
	NextAttemptAt *int64 `json:"nextAttemptAt,omitempty"`
	LastError     string `json:"lastError,omitempty"`
	FailedAt      *int64 `json:"failedAt,omitempty"`
}

// NewOutboxItemJSON is it on the wire.
func NewOutboxItemJSON(it *core.OutboxItem) OutboxItemJSON {
	kind := it.Kind
	if kind == core.OutboxWebhook {
		kind = "webhook"
	}
	return OutboxItemJSON{ID: it.ID, Kind: kind, MessageID: it.MessageID, Attempts: it.Attempts,
		NextAttemptAt: optMillis(it.NextAttemptAt), LastError: it.LastError, FailedAt: optMillis(it.FailedAt)}
}

// Core is the item j describes.
func (j OutboxItemJSON) Core() *core.OutboxItem {
	kind := j.Kind
	if kind == "webhook" {
		kind = core.OutboxWebhook
	}
	return &core.OutboxItem{ID: j.ID, Kind: kind, MessageID: j.MessageID, Attempts: j.Attempts,
		NextAttemptAt: fromOptMillis(j.NextAttemptAt), LastError: j.LastError, FailedAt: fromOptMillis(j.FailedAt)}
}

// Package core is Sendlater's domain: the records and their rules, the
// services every front end calls (web, the admin socket, the CLI, the TUI),
// and the interfaces of the stores that keep them (store/bolt and
// store/postgres implement them). It is one package because its invariants
// rely on unexported methods; its files carry their area's prefix, so the
// file names map it:
//
//   - message_*: a message, its input checks, recipients, interval, timeline
//     events, postpone rule and link, hold, paging and live follow
//     (Message, MessageInput, MessageService, MessageStore, Recipient,
//     EventKind, PostponeLinkService, MessageWatcher).
//   - delivery_*: the pass that sends due messages, reminds and retries, the
//     reminder ladder and second address, the outbox (emails, webhooks), the
//     mail a pass writes, refusal links, test sends, the scheduler and each
//     process's health (Delivery, DeliveryStore, Outbox, Mailer, Email,
//     Ladder, RefusalTokens, Scheduler, DeliveryHealth).
//   - identity_*: users and how they prove who they are: passwords,
//     sessions, ID and access tokens and their scopes, action codes, social
//     sign-in, account claims, proof of work, export, the sweeper of what
//     expired (Auth, User, UserStore, Identity, Session, AccessToken,
//     ActionCode, SocialAuth, Sweeper).
//   - billing_*: plans and prices, checkout and the payment provider's
//     events (Plan, PlanID, PriceMap, BillingService, PaymentProvider,
//     BillingStore).
//   - admin_*: what the operator does and sees: the role interfaces of
//     Admin, the audit of operator acts, the contact form, page views and
//     the operator's summary email (Admin, AdminService, Store, AuditEntry,
//     ContactService, PageViewService, Summary).
//   - the kernel, unprefixed: typed errors and their codes (errors.go), the
//     clock, ids and derived keys, rate limits and their client keys, log
//     masking, text checks, the generation cache, and the interfaces front
//     ends use (services.go: Messages, Account, Identities, ...).
//
// The rules a store applies whatever its backend (the checks of a record
// before it is written, the single use of an action code, each refusal's
// code and sentence as a named constructor such as ErrUserNotFound) are
// written here once, on the records: identity_records.go,
// message_records.go, and beside their records for the outbox, health and
// billing; the stores keep only storage.
//
// A file's tests sit next to it with the same prefix.
package core

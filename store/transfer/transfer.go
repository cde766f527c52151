// Package transfer moves an installation between store backends: every
// record, as the source keeps it (message contents, account names, contact
// submissions, outbox items and webhook secrets still sealed: nothing is
// opened on the way), the operators' audit log and the page-view counters
// included, copied into the
// destination with upserts, so a copy can be rerun and a rerun changes
// nothing; then the attachments' files inside the store (their sealed bytes,
// streamed unopened); the counts are verified at the end. Each backend exposes its
// records through Store; the copy knows no backend.
package transfer

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// Records is a batch of a store's records as it keeps them.
type Records struct {
	Users          []*seal.User
	Messages       []*seal.Message
	Sessions       []*core.Session
	AccessTokens   []*core.AccessToken
	ActionCodes    []*core.ActionCode
	Contacts       []*seal.Contact
	Refusals       []*Refusal
	Outbox         []*seal.OutboxItem
	WebhookSecrets []*WebhookSecret
	ProviderLinks  []*core.ProviderLink
	BillingEvents  []*BillingEvent
	// Events are the messages' timelines (after their messages).
	Events []*seal.Event
	// Audit is the operators' audit log, known by each entry's id.
	Audit []*core.AuditEntry
	// PageViews are the page-view counters, known by day and path: an
	// import sets a counter to the count copied, never adds to it.
	PageViews []*core.PageViewCount
	// Drafts are the authors' unsent drafts, contents still sealed (after
	// their users and messages).
	Drafts []*Draft
	// Passkeys are the users' WebAuthn credentials (public keys only).
	Passkeys []*core.Passkey
	// DeviceBooks are the devices and networks each account signed in
	// from (keyed hashes only), so that a move sends no new-device email.
	DeviceBooks []*core.DeviceBook
	// Suppressions are the addresses that complained (issue 31), known by
	// their keyed hash, address and reason still sealed. The bounced and
	// complained events are in the timelines.
	Suppressions []*seal.Suppression
	// BounceMarks are the recipients' bounce marks and soft-bounce counts
	// (issue 31), known by message and address hash, still sealed (after
	// their messages).
	BounceMarks []*seal.BounceMark
	// Attachments are the files' records (issue 33), names still sealed,
	// after their users and messages; the files' bytes are blobs, copied
	// after every record.
	Attachments []*Attachment
}

// Attachment is a file's record as a store keeps it: its name sealed
// (seal.Sealer.SealAttachmentName), the rest as core.Attachment has it.
type Attachment struct {
	ID, MessageID, Owner     string
	Name                     []byte
	Type                     string
	Size, PartSize           int64
	Executable, ClientSealed bool
	Parts                    []string
	State                    string
	// CompletedAt is zero while the file is being uploaded.
	CreatedAt, CompletedAt time.Time
	// Downloads are the recipients' downloads from their links, by
	// recipient (FileID left empty: the file's ID).
	Downloads []core.AttachmentDownload
}

// Draft is an author's draft as a store keeps it: its contents sealed
// (seal.Sealer.SealDraft).
type Draft struct {
	Owner, Key string
	UpdatedAt  time.Time
	Sealed     []byte
}

// Refusal is a refused address, known only by its keyed hash
// (seal.Sealer.AddressHash).
type Refusal struct {
	Hash []byte
	At   time.Time
}

// WebhookSecret is a user's sealed webhook signing secret.
type WebhookSecret struct {
	UserID string
	Secret []byte
}

// BillingEvent is the id of a payment event applied, and when it was
// recorded.
type BillingEvent struct {
	ID string
	At time.Time
}

// Counts are how many records of each kind a store holds.
type Counts struct {
	Users, Messages, Sessions, AccessTokens, ActionCodes, Contacts, Refusals, Outbox, WebhookSecrets,
	ProviderLinks, BillingEvents, Events, Audit, PageViews, Drafts, Passkeys, DeviceBooks, Suppressions int
	BounceMarks int
	// Attachments are the files' records.
	Attachments int
	// Files are the attachments' files the store keeps (Store.Blobs).
	Files int
}

// Count is what r holds.
func (r *Records) Count() Counts {
	return Counts{
		Users: len(r.Users), Messages: len(r.Messages), Sessions: len(r.Sessions),
		AccessTokens: len(r.AccessTokens), ActionCodes: len(r.ActionCodes), Contacts: len(r.Contacts),
		Refusals: len(r.Refusals), Outbox: len(r.Outbox), WebhookSecrets: len(r.WebhookSecrets),
		ProviderLinks: len(r.ProviderLinks), BillingEvents: len(r.BillingEvents), Events: len(r.Events),
		Audit: len(r.Audit), PageViews: len(r.PageViews), Drafts: len(r.Drafts), Passkeys: len(r.Passkeys),
		DeviceBooks: len(r.DeviceBooks), Suppressions: len(r.Suppressions), Attachments: len(r.Attachments),
		BounceMarks: len(r.BounceMarks),
	}
}

func (c Counts) add(d Counts) Counts {
	return Counts{
		Users: c.Users + d.Users, Messages: c.Messages + d.Messages, Sessions: c.Sessions + d.Sessions,
		AccessTokens: c.AccessTokens + d.AccessTokens, ActionCodes: c.ActionCodes + d.ActionCodes,
		Contacts: c.Contacts + d.Contacts, Refusals: c.Refusals + d.Refusals,
		Outbox: c.Outbox + d.Outbox, WebhookSecrets: c.WebhookSecrets + d.WebhookSecrets,
		ProviderLinks: c.ProviderLinks + d.ProviderLinks, BillingEvents: c.BillingEvents + d.BillingEvents,
		Events: c.Events + d.Events, Audit: c.Audit + d.Audit, PageViews: c.PageViews + d.PageViews,
		Drafts: c.Drafts + d.Drafts, Passkeys: c.Passkeys + d.Passkeys, DeviceBooks: c.DeviceBooks + d.DeviceBooks,
		Suppressions: c.Suppressions + d.Suppressions, Attachments: c.Attachments + d.Attachments,
		BounceMarks: c.BounceMarks + d.BounceMarks,
		Files:       c.Files + d.Files,
	}
}

// kinds names each count, in the order Export yields them.
func (c Counts) kinds() []struct {
	name string
	n    int
} {
	return []struct {
		name string
		n    int
	}{
		{"users", c.Users}, {"messages", c.Messages}, {"sessions", c.Sessions}, {"access tokens", c.AccessTokens},
		{"action codes", c.ActionCodes}, {"contact submissions", c.Contacts}, {"refused addresses", c.Refusals},
		{"suppressed addresses", c.Suppressions},
		{"outbox items", c.Outbox}, {"webhook secrets", c.WebhookSecrets},
		{"provider links", c.ProviderLinks}, {"billing events", c.BillingEvents}, {"timeline events", c.Events},
		{"bounce marks", c.BounceMarks},
		{"audit entries", c.Audit}, {"page-view counters", c.PageViews},
		{"drafts", c.Drafts}, {"passkeys", c.Passkeys}, {"device books", c.DeviceBooks},
		{"file records", c.Attachments}, {"attached files", c.Files},
	}
}

// String lists the counts: "2 users, 10 messages, ...".
func (c Counts) String() string {
	var parts []string
	for _, k := range c.kinds() {
		parts = append(parts, fmt.Sprintf("%d %s", k.n, k.name))
	}
	return strings.Join(parts, ", ")
}

// Store is what a backend exposes to be copied from and to.
type Store interface {
	// KeyID names the key the store seals with (seal.Sealer.KeyID).
	KeyID() string
	// Export calls fn with every record of the store, read from one
	// consistent view, in batches of at most n records of one kind; users
	// come first, so an importer meets a user before what is theirs.
	Export(ctx context.Context, n int, fn func(r *Records) error) error
	// Import writes the records in one transaction, inserting each or
	// replacing the record with its key, and returns how many were new or
	// different: importing what the store holds changes nothing.
	Import(ctx context.Context, r *Records) (changed int, err error)
	// Counts counts the records of each kind.
	Counts(ctx context.Context) (Counts, error)
	// Blobs is where the store keeps the attachments' sealed bytes.
	Blobs() core.BlobStore
}

// Report is what Copy did.
type Report struct {
	Copied    Counts // the source's records, every one copied
	Changed   int    // of those, how many were new or different in the destination
	FileBytes int64  // the bytes of the files copied (Copied.Files)
}

// batchSize is how many records one Import writes: one transaction (and one
// fsync) per batch.
const batchSize = 500

// Copy copies every record of from into to and verifies that to then holds
// as many of each kind as from: a destination that held other records
// before fails the check. Both stores must seal with the same key, since
// sealed bytes are copied unopened. Writers to from should be stopped: the
// copy is of one consistent view, and later writes are not in it.
func Copy(ctx context.Context, from, to Store) (Report, error) {
	var rep Report
	if from.KeyID() != to.KeyID() {
		return rep, core.Errorf(core.EInvalid,
			"The two stores use different encryption keys: open the destination with the source's key, or its sealed messages could not be read.")
	}
	err := from.Export(ctx, batchSize, func(r *Records) error {
		n, err := to.Import(ctx, r)
		if err != nil {
			return err
		}
		rep.Copied = rep.Copied.add(r.Count())
		rep.Changed += n
		return nil
	})
	if err != nil {
		return rep, err
	}
	if err := copyFiles(ctx, from.Blobs(), to.Blobs(), &rep); err != nil {
		return rep, err
	}
	held, err := to.Counts(ctx)
	if err != nil {
		return rep, err
	}
	want := rep.Copied.kinds()
	for i, got := range held.kinds() {
		if got.n != want[i].n {
			return rep, core.Errorf(core.EConflict,
				"After the copy the destination holds %d %s, the source %d: it held other records before. Copy into an empty store.",
				got.n, got.name, want[i].n)
		}
	}
	return rep, nil
}

// copyFiles streams every file of from into to, its sealed bytes unopened
// and unchanged (a file is written once: one the destination holds under
// the same key and size is the same file, and is left as it is).
func copyFiles(ctx context.Context, from, to core.BlobStore, rep *Report) error {
	return from.ListBlobs(ctx, "", func(key string, size int64) error {
		rep.Copied.Files++
		rep.FileBytes += size
		if held, err := to.OpenBlob(ctx, key); err == nil {
			n := held.Size()
			held.Close()
			if n != size {
				return core.Errorf(core.EConflict,
					"The destination holds another file under %q (%d bytes, the source's %d): it held other files before. Copy into an empty store.",
					key, n, size)
			}
			return nil
		} else if core.ErrorCode(err) != core.ENotFound {
			return err
		}
		r, err := from.OpenBlob(ctx, key)
		if err != nil {
			return err
		}
		defer r.Close()
		n, err := to.PutBlob(ctx, key, io.NewSectionReader(r, 0, r.Size()))
		if err != nil {
			return err
		}
		if n != size {
			return core.Errorf(core.EInternal, "The file %q was copied with %d bytes of its %d.", key, n, size)
		}
		rep.Changed++
		return nil
	})
}

package transfer_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/transfer"
)

// fillAccounts stores what accounts keep beside their messages: drafts (of
// a new message and of an existing one), passkeys and device books, for the
// first ten messages' authors, and counts them into c.
func fillAccounts(tb testing.TB, db *bolt.DB, ms []*core.Message, at time.Time, c *transfer.Counts) {
	tb.Helper()
	at = at.Truncate(time.Microsecond) // PostgreSQL keeps a draft's time to the microsecond
	done := map[string]bool{}
	for i, m := range ms[:min(10, len(ms))] {
		must(tb, db.PutDraft(ctx, &core.Draft{Owner: m.Owner, Key: m.ID, Title: "Edited " + m.ID, Body: "A changed letter.",
			Recipients: []core.DraftRecipient{{Name: "Grace", Address: "grace@example.com"}}, UpdatedAt: at}))
		c.Drafts++
		if done[m.Owner] {
			continue
		}
		done[m.Owner] = true
		must(tb, db.PutDraft(ctx, &core.Draft{Owner: m.Owner, Key: core.DraftNew, Body: "Not sent yet.",
			Interval: core.Interval6M, UpdatedAt: at}))
		must(tb, db.CreatePasskey(ctx, &core.Passkey{UserID: m.Owner, Name: fmt.Sprintf("Laptop %d", i),
			CredentialID: []byte("cred-" + m.Owner), PublicKey: []byte("pk-" + m.Owner), Transports: []string{"internal"},
			SignCount: uint32(i), BackupEligible: true, CreatedAt: at, LastUsedAt: at.Add(time.Minute)}))
		_, err := db.UpdateDeviceBook(ctx, m.Owner, func(b *core.DeviceBook) error {
			b.AlertsOff = i%2 == 0
			b.Devices = append(b.Devices, core.KnownDevice{Key: "dev-" + m.Owner, FirstSeen: at, LastSeen: at.Add(time.Hour)})
			return nil
		})
		must(tb, err)
		c.Drafts++
		c.Passkeys++
		c.DeviceBooks++
	}
	// Files' records (issue 33): one whole in two parts, one upload under
	// way; the quota is no matter here.
	q := core.AttachmentQuota{MaxFiles: 10, PerMessage: 1 << 30, PerAccount: 1 << 30}
	for i, m := range ms[:2] {
		a := &core.Attachment{ID: core.NewID(), MessageID: m.ID, Owner: m.Owner, Name: fmt.Sprintf("will %d.pdf", i),
			Size: 3 << 20, PartSize: 2 << 20, State: core.AttachmentUploading, CreatedAt: at}
		must(tb, db.CreateAttachment(ctx, a, q))
		_, err := db.AddAttachmentPart(ctx, a.ID, 0, "tok0", "application/pdf", false, at.Add(time.Minute))
		must(tb, err)
		if i == 0 {
			_, err = db.AddAttachmentPart(ctx, a.ID, 1, "tok1", "", false, at.Add(2*time.Minute))
			must(tb, err)
			// Downloaded by two recipients, one of them twice.
			for j, r := range []int{0, 1, 0} {
				_, err := db.CountAttachmentDownload(ctx, a.ID, r, at.Add(time.Duration(3+j)*time.Minute))
				must(tb, err)
			}
		}
		c.Attachments++
	}
}

// accountsOpen checks, through s's own reads, that a copy brought the
// drafts (opened to the same text), the passkeys (found by credential) and
// the device books of want.
func accountsOpen(tb testing.TB, src, s interface {
	core.DraftStore
	core.PasskeyStore
	core.DeviceBookStore
	core.AttachmentStore
	core.AttachmentDownloadStore
}, want *transfer.Records) {
	tb.Helper()
	if len(want.Drafts) == 0 || len(want.Passkeys) == 0 || len(want.DeviceBooks) == 0 {
		tb.Fatalf("the source has %d drafts, %d passkeys, %d device books", len(want.Drafts), len(want.Passkeys), len(want.DeviceBooks))
	}
	for _, d := range want.Drafts {
		got, err := s.Draft(ctx, d.Owner, d.Key)
		must(tb, err)
		orig, err := src.Draft(ctx, d.Owner, d.Key)
		must(tb, err)
		if !reflect.DeepEqual(got, orig) {
			tb.Fatalf("%T: draft %s/%s opens to %+v, want %+v", s, d.Owner, d.Key, got, orig)
		}
	}
	for _, p := range want.Passkeys {
		got, err := s.FindPasskeyByCredential(ctx, p.CredentialID)
		must(tb, err)
		if !reflect.DeepEqual(got, p) {
			tb.Fatalf("%T: passkey %+v, want %+v", s, got, p)
		}
	}
	for _, b := range want.DeviceBooks {
		got, err := s.FindDeviceBook(ctx, b.UserID)
		must(tb, err)
		if !reflect.DeepEqual(got, b) {
			tb.Fatalf("%T: device book %+v, want %+v", s, got, b)
		}
	}
	if len(want.Attachments) == 0 {
		tb.Fatal("the source has no files' records")
	}
	for _, a := range want.Attachments {
		got, err := s.Attachment(ctx, a.ID)
		must(tb, err)
		orig, err := src.Attachment(ctx, a.ID)
		must(tb, err)
		if !reflect.DeepEqual(got, orig) {
			tb.Fatalf("%T: file %s opens to %+v, want %+v", s, a.ID, got, orig)
		}
		gotDL, err := s.AttachmentDownloads(ctx, a.ID)
		must(tb, err)
		origDL, err := src.AttachmentDownloads(ctx, a.ID)
		must(tb, err)
		if !reflect.DeepEqual(gotDL, origDL) || len(origDL) != len(a.Downloads) {
			tb.Fatalf("%T: file %s's downloads are %+v, want %+v", s, a.ID, gotDL, origDL)
		}
		of, err := s.MessageAttachments(ctx, a.MessageID)
		must(tb, err)
		if len(of) != 1 || of[0].ID != a.ID {
			tb.Fatalf("%T: message %s lists %d files, want %s", s, a.MessageID, len(of), a.ID)
		}
	}
}

package storetest

import (
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func needsAttachments(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Attachments == nil {
			t.Skip("the backend keeps no attachments")
		}
		fn(t, s)
	}
}

var roomyQuota = core.AttachmentQuota{MaxFiles: core.MaxAttachments, PerMessage: 25e6, PerAccount: 250e6}

func newUpload(s Stores, m *core.Message, name string, size, partSize int64) *core.Attachment {
	return &core.Attachment{ID: core.NewID(), MessageID: m.ID, Owner: m.Owner, Name: name, Size: size,
		PartSize: partSize, State: core.AttachmentUploading, CreatedAt: s.Clock.Now()}
}

// An upload is kept with its name, reads back whole, takes its parts in
// order once each (a part stored twice, out of order or after the end is
// EConflict and changes nothing), and completes with its last part.
func testAttachments(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	bob := MustCreateUser(t, s, "bob@example.com")
	m := MustCreateMessage(t, s, ann.ID, core.Interval1M)

	a := newUpload(s, m, "Testament von Anna – 2025.pdf", 300, 128)
	must(t, s.Attachments.CreateAttachment(ctx, a, roomyQuota))
	got, err := s.Attachments.Attachment(ctx, a.ID)
	must(t, err)
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("Attachment = %+v, want %+v", got, a)
	}
	// Another's message, or a message that is not there: as missing.
	foreign := newUpload(s, m, "x", 1, 128)
	foreign.Owner = bob.ID
	wantCode(t, s.Attachments.CreateAttachment(ctx, foreign, roomyQuota), core.EMessageNotFound)
	gone := newUpload(s, m, "x", 1, 128)
	gone.MessageID = "nope"
	wantCode(t, s.Attachments.CreateAttachment(ctx, gone, roomyQuota), core.EMessageNotFound)
	wantCode(t, s.Attachments.CreateAttachment(ctx, a, roomyQuota), core.EConflict)
	_, err = s.Attachments.Attachment(ctx, "nope")
	wantCode(t, err, core.EAttachmentNotFound)

	// Parts: 128 + 128 + 44 bytes.
	_, err = s.Attachments.AddAttachmentPart(ctx, a.ID, 1, "t1", "", false, s.Clock.Now())
	wantCode(t, err, core.EConflict)
	got, err = s.Attachments.AddAttachmentPart(ctx, a.ID, 0, "t0", "application/pdf", false, s.Clock.Now())
	must(t, err)
	if got.Type != "application/pdf" || got.Offset() != 128 || got.State != core.AttachmentUploading {
		t.Fatalf("after part 0: %+v", got)
	}
	_, err = s.Attachments.AddAttachmentPart(ctx, a.ID, 0, "again", "text/plain", true, s.Clock.Now())
	wantCode(t, err, core.EConflict)
	_, err = s.Attachments.AddAttachmentPart(ctx, a.ID, 1, "t1", "", false, s.Clock.Now())
	must(t, err)
	s.Clock.Add(time.Minute)
	got, err = s.Attachments.AddAttachmentPart(ctx, a.ID, 2, "t2", "", false, s.Clock.Now())
	must(t, err)
	if got.State != core.AttachmentComplete || !got.CompletedAt.Equal(s.Clock.Now()) || got.Offset() != 300 {
		t.Fatalf("after the last part: %+v", got)
	}
	_, err = s.Attachments.AddAttachmentPart(ctx, a.ID, 3, "t3", "", false, s.Clock.Now())
	wantCode(t, err, core.EConflict)
	read, err := s.Attachments.Attachment(ctx, a.ID)
	must(t, err)
	if !reflect.DeepEqual(read, got) || !reflect.DeepEqual(read.Parts, []string{"t0", "t1", "t2"}) || read.Type != "application/pdf" {
		t.Fatalf("read back = %+v, want %+v", read, got)
	}

	b := newUpload(s, m, "empty.txt", 0, 128)
	b.ClientSealed = true
	must(t, s.Attachments.CreateAttachment(ctx, b, roomyQuota))
	list, err := s.Attachments.MessageAttachments(ctx, m.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID || !list[1].ClientSealed {
		t.Fatalf("MessageAttachments = %+v", list)
	}
	seen := 0
	must(t, s.Attachments.EachAttachment(ctx, func(*core.Attachment) error { seen++; return nil }))
	if seen != 2 {
		t.Fatalf("EachAttachment saw %d, want 2", seen)
	}
	must(t, s.Attachments.DeleteAttachment(ctx, a.ID))
	must(t, s.Attachments.DeleteAttachment(ctx, a.ID))
	_, err = s.Attachments.Attachment(ctx, a.ID)
	wantCode(t, err, core.EAttachmentNotFound)
	// The freed bytes count no more: a file of the whole message's size fits.
	must(t, s.Attachments.CreateAttachment(ctx, newUpload(s, m, "big", 25e6, 1<<20), roomyQuota))
}

// The quota counts files and bytes of the message and of the account,
// with what is reserved already; over it is EPlanLimit with the field.
func testAttachmentQuota(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	m1 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	m2 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	q := core.AttachmentQuota{MaxFiles: 3, PerMessage: 1000, PerAccount: 1500}
	for range 3 {
		must(t, s.Attachments.CreateAttachment(ctx, newUpload(s, m1, "a", 100, 128), q))
	}
	err := s.Attachments.CreateAttachment(ctx, newUpload(s, m1, "a", 1, 128), q)
	wantCode(t, err, core.EPlanLimit)
	if e, _ := core.AsError(err); e.Fields["files"] == "" {
		t.Fatalf("the fourth file: %+v, want the field files", e)
	}
	err = s.Attachments.CreateAttachment(ctx, newUpload(s, m2, "b", 1001, 128), q)
	wantCode(t, err, core.EPlanLimit)
	// A size that would overflow the sum is over, not under.
	err = s.Attachments.CreateAttachment(ctx, newUpload(s, m2, "b", math.MaxInt64, 128), q)
	wantCode(t, err, core.EPlanLimit)
	must(t, s.Attachments.CreateAttachment(ctx, newUpload(s, m2, "b", 1000, 128), q))
	// 300 + 1000 reserved: 201 more is over the account's 1500.
	err = s.Attachments.CreateAttachment(ctx, newUpload(s, m2, "c", 201, 128), q)
	wantCode(t, err, core.EPlanLimit)
	if e, _ := core.AsError(err); e.Fields["size"] == "" {
		t.Fatalf("over the account: %+v, want the field size", e)
	}
	m3 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	must(t, s.Attachments.CreateAttachment(ctx, newUpload(s, m3, "c", 200, 128), q))
}

// Eight uploads made at once, each of a third of the account's quota,
// cannot reserve more than it: exactly three win.
func testAttachmentQuotaRace(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	var msgs []*core.Message
	for range 8 {
		msgs = append(msgs, MustCreateMessage(t, s, ann.ID, core.Interval1M))
	}
	q := core.AttachmentQuota{MaxFiles: core.MaxAttachments, PerMessage: 25e6, PerAccount: 30e6}
	errs := make([]error, 8)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 8 {
		wg.Go(func() {
			a := newUpload(s, msgs[i], "f", 10e6, 1<<20)
			<-start
			errs[i] = s.Attachments.CreateAttachment(ctx, a, q)
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch core.ErrorCode(err) {
		case "":
			won++
		case core.EPlanLimit:
		default:
			t.Fatalf("CreateAttachment: %v", err)
		}
	}
	var total int64
	for _, m := range msgs {
		as, err := s.Attachments.MessageAttachments(ctx, m.ID)
		must(t, err)
		for _, a := range as {
			total += a.Size
		}
	}
	if won != 3 || total != 30e6 {
		t.Fatalf("%d uploads won, %d bytes reserved; want 3 and 30 MB", won, total)
	}
}

// A message's files go with it, a user's with the user.
func testAttachmentsGoWithMessageAndUser(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	bob := MustCreateUser(t, s, "bob@example.com")
	m1 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	m2 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	mb := MustCreateMessage(t, s, bob.ID, core.Interval1M)
	a1, a2, ab := newUpload(s, m1, "1", 10, 128), newUpload(s, m2, "2", 10, 128), newUpload(s, mb, "b", 10, 128)
	for _, a := range []*core.Attachment{a1, a2, ab} {
		must(t, s.Attachments.CreateAttachment(ctx, a, roomyQuota))
	}
	must(t, s.Messages.DeleteMessage(ctx, m1.ID))
	_, err := s.Attachments.Attachment(ctx, a1.ID)
	wantCode(t, err, core.EAttachmentNotFound)
	if _, err := s.Attachments.Attachment(ctx, a2.ID); err != nil {
		t.Fatalf("the other message's file went too: %v", err)
	}
	must(t, s.Users.DeleteUser(ctx, ann.ID))
	_, err = s.Attachments.Attachment(ctx, a2.ID)
	wantCode(t, err, core.EAttachmentNotFound)
	if _, err := s.Attachments.Attachment(ctx, ab.ID); err != nil {
		t.Fatalf("another user's file went too: %v", err)
	}
	// The account's bytes are free again: a new user of the same store
	// starts from zero, and bob's reservation is his alone.
	left := 0
	must(t, s.Attachments.EachAttachment(ctx, func(*core.Attachment) error { left++; return nil }))
	if left != 1 {
		t.Fatalf("%d records left, want bob's 1", left)
	}
}

// OwnerAttachments lists the owner's files of every message, oldest first,
// and no one else's; a deleted message's files leave it.
func testOwnerAttachments(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	bob := MustCreateUser(t, s, "bob@example.com")
	m1 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	m2 := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	mb := MustCreateMessage(t, s, bob.ID, core.Interval1M)
	none, err := s.Attachments.OwnerAttachments(ctx, ann.ID)
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("OwnerAttachments of a user without files = %+v", none)
	}
	a1 := newUpload(s, m1, "1", 10, 128)
	must(t, s.Attachments.CreateAttachment(ctx, a1, roomyQuota))
	s.Clock.Add(time.Second)
	a2 := newUpload(s, m2, "2", 20, 128)
	must(t, s.Attachments.CreateAttachment(ctx, a2, roomyQuota))
	must(t, s.Attachments.CreateAttachment(ctx, newUpload(s, mb, "b", 30, 128), roomyQuota))
	got, err := s.Attachments.OwnerAttachments(ctx, ann.ID)
	must(t, err)
	if len(got) != 2 || !reflect.DeepEqual(got[0], a1) || !reflect.DeepEqual(got[1], a2) {
		t.Fatalf("OwnerAttachments = %+v, want %+v and %+v", got, a1, a2)
	}
	must(t, s.Messages.DeleteMessage(ctx, m1.ID))
	got, err = s.Attachments.OwnerAttachments(ctx, ann.ID)
	must(t, err)
	if len(got) != 1 || got[0].ID != a2.ID {
		t.Fatalf("after deleting a message, OwnerAttachments = %+v", got)
	}
}

package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The recipients' downloads of a file are counted per recipient, with the
// first and last time; downloads at once each count, and exactly one of a
// recipient's is the first (which goes on the author's timeline). They go
// with the file and the message, and a file that is gone counts nothing.
func testAttachmentDownloads(t *testing.T, s Stores) {
	d, ok := s.Attachments.(core.AttachmentDownloadStore)
	if !ok {
		t.Skip("the backend counts no downloads")
	}
	ann := MustCreateUser(t, s, "ann@example.com")
	m := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	a := newUpload(s, m, "will.pdf", 10, 128)
	must(t, s.Attachments.CreateAttachment(ctx, a, roomyQuota))
	_, err := s.Attachments.AddAttachmentPart(ctx, a.ID, 0, "t0", "application/pdf", false, s.Clock.Now())
	must(t, err)

	none, err := d.AttachmentDownloads(ctx, a.ID)
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("downloads before any: %+v", none)
	}
	first := s.Clock.Now()
	if n, err := d.CountAttachmentDownload(ctx, a.ID, 1, first); err != nil || n != 1 {
		t.Fatalf("first download: %d %v", n, err)
	}
	s.Clock.Add(time.Hour)
	if n, err := d.CountAttachmentDownload(ctx, a.ID, 1, s.Clock.Now()); err != nil || n != 2 {
		t.Fatalf("second download: %d %v", n, err)
	}
	if n, err := d.CountAttachmentDownload(ctx, a.ID, 0, s.Clock.Now()); err != nil || n != 1 {
		t.Fatalf("another recipient's first: %d %v", n, err)
	}
	// Eight at once of a third recipient: one is the first, all count.
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := d.CountAttachmentDownload(ctx, a.ID, 2, s.Clock.Now())
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			if n == 1 {
				firsts++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firsts != 1 {
		t.Fatalf("%d firsts of eight downloads at once", firsts)
	}
	// The part stored keeps the counts (a record rewritten keeps them).
	got, err := d.AttachmentDownloads(ctx, a.ID)
	must(t, err)
	want := map[int]int{0: 1, 1: 2, 2: 8}
	if len(got) != 3 {
		t.Fatalf("downloads = %+v", got)
	}
	for _, g := range got {
		if g.FileID != a.ID || g.Count != want[g.Recipient] || g.LastAt.Before(g.FirstAt) {
			t.Fatalf("downloads = %+v", got)
		}
		if g.Recipient == 1 && (!g.FirstAt.Equal(first) || !g.LastAt.Equal(first.Add(time.Hour))) {
			t.Fatalf("recipient 1's times: %+v", g)
		}
	}

	// They go with the file; a file that is gone counts nothing.
	must(t, s.Attachments.DeleteAttachment(ctx, a.ID))
	_, err = d.CountAttachmentDownload(ctx, a.ID, 1, s.Clock.Now())
	wantCode(t, err, core.EAttachmentNotFound)
	gone, err := d.AttachmentDownloads(ctx, a.ID)
	must(t, err)
	if len(gone) != 0 {
		t.Fatalf("downloads of a deleted file: %+v", gone)
	}
	// And with the message.
	b := newUpload(s, m, "photo.jpg", 10, 128)
	must(t, s.Attachments.CreateAttachment(ctx, b, roomyQuota))
	_, err = d.CountAttachmentDownload(ctx, b.ID, 0, s.Clock.Now())
	must(t, err)
	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	_, err = d.CountAttachmentDownload(ctx, b.ID, 0, s.Clock.Now())
	wantCode(t, err, core.EAttachmentNotFound)
}

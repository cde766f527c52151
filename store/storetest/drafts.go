package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

func needsDrafts(fn func(t *testing.T, s Stores)) func(t *testing.T, s Stores) {
	return func(t *testing.T, s Stores) {
		if s.Drafts == nil {
			t.Skip("the backend keeps no drafts")
		}
		fn(t, s)
	}
}

// A draft is kept whole per owner and key, replaced by the next, read by
// no other owner, and deleted (twice is no error).
func testDrafts(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	bob := MustCreateUser(t, s, "bob@example.com")
	m := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	_, err := s.Drafts.Draft(ctx, ann.ID, core.DraftNew)
	wantCode(t, err, core.EDraftNotFound)

	d := &core.Draft{Owner: ann.ID, Key: core.DraftNew, Title: "To Grace", Body: "Dear Grace,\nlater.", Interval: core.Interval6M,
		Recipients: []core.DraftRecipient{{Name: "Grace", Address: "grace@example.com"}, {Name: "", Address: "half"}},
		UpdatedAt:  s.Clock.Now()}
	must(t, s.Drafts.PutDraft(ctx, d))
	edit := &core.Draft{Owner: ann.ID, Key: m.ID, Body: "an edit", UpdatedAt: s.Clock.Now()}
	must(t, s.Drafts.PutDraft(ctx, edit))
	got, err := s.Drafts.Draft(ctx, ann.ID, core.DraftNew)
	must(t, err)
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("Draft = %+v, want %+v", got, d)
	}
	if got, err := s.Drafts.Draft(ctx, ann.ID, m.ID); err != nil || got.Body != "an edit" || got.Recipients != nil {
		t.Fatalf("Draft of the message = %+v, %v", got, err)
	}
	// Another owner's key of the same name is another draft.
	_, err = s.Drafts.Draft(ctx, bob.ID, core.DraftNew)
	wantCode(t, err, core.EDraftNotFound)

	s.Clock.Add(time.Second)
	d2 := &core.Draft{Owner: ann.ID, Key: core.DraftNew, Title: "Shorter", UpdatedAt: s.Clock.Now()}
	must(t, s.Drafts.PutDraft(ctx, d2))
	if got, err := s.Drafts.Draft(ctx, ann.ID, core.DraftNew); err != nil || !reflect.DeepEqual(got, d2) {
		t.Fatalf("Draft after a replace = %+v, %v; want %+v", got, err, d2)
	}

	must(t, s.Drafts.DeleteDraft(ctx, ann.ID, core.DraftNew))
	must(t, s.Drafts.DeleteDraft(ctx, ann.ID, core.DraftNew))
	_, err = s.Drafts.Draft(ctx, ann.ID, core.DraftNew)
	wantCode(t, err, core.EDraftNotFound)
	if _, err := s.Drafts.Draft(ctx, ann.ID, m.ID); err != nil {
		t.Fatalf("the other draft went too: %v", err)
	}

	err = s.Drafts.PutDraft(ctx, &core.Draft{Owner: core.NewID(), Key: core.DraftNew, UpdatedAt: s.Clock.Now()})
	wantCode(t, err, core.EUserNotFound)
}

// A message's draft goes with the message, every draft with its user.
func testDraftsGoWithMessageAndUser(t *testing.T, s Stores) {
	ann := MustCreateUser(t, s, "ann@example.com")
	bob := MustCreateUser(t, s, "bob@example.com")
	m := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	kept := MustCreateMessage(t, s, ann.ID, core.Interval1M)
	bm := MustCreateMessage(t, s, bob.ID, core.Interval1M)
	for _, d := range []*core.Draft{
		{Owner: ann.ID, Key: core.DraftNew}, {Owner: ann.ID, Key: m.ID}, {Owner: ann.ID, Key: kept.ID},
		{Owner: bob.ID, Key: core.DraftNew}, {Owner: bob.ID, Key: bm.ID},
	} {
		d.Body, d.UpdatedAt = "draft", s.Clock.Now()
		must(t, s.Drafts.PutDraft(ctx, d))
	}
	must(t, s.Messages.DeleteMessage(ctx, m.ID))
	_, err := s.Drafts.Draft(ctx, ann.ID, m.ID)
	wantCode(t, err, core.EDraftNotFound)
	if _, err := s.Drafts.Draft(ctx, ann.ID, kept.ID); err != nil {
		t.Fatalf("another message's draft went with it: %v", err)
	}
	must(t, s.Users.DeleteUser(ctx, ann.ID))
	for _, key := range []string{core.DraftNew, kept.ID} {
		_, err := s.Drafts.Draft(ctx, ann.ID, key)
		wantCode(t, err, core.EDraftNotFound)
	}
	for _, key := range []string{core.DraftNew, bm.ID} {
		if _, err := s.Drafts.Draft(ctx, bob.ID, key); err != nil {
			t.Fatalf("another user's draft %s went: %v", key, err)
		}
	}
}

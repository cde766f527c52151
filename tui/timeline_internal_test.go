package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
)

// eventsOnly is a core.Messages that answers only a message's timeline.
type eventsOnly struct {
	core.Messages
	events []*core.MessageEvent
}

func (e eventsOnly) Events(context.Context, string) ([]*core.MessageEvent, error) {
	return e.events, nil
}

// A recipient's file download reads as the web app's history says it: the
// file, then by whom.
func TestTheTimelineNamesADownload(t *testing.T) {
	at := time.Date(2027, 1, 16, 9, 30, 0, 0, time.UTC)
	m := &Model{cfg: Config{Ctx: context.Background(), Messages: eventsOnly{events: []*core.MessageEvent{
		{At: at, Kind: core.EventDownloaded, Actor: core.ActorFileLink, Recipient: "ann@example.com", Detail: "will.pdf"},
	}}}}
	lines, err := m.timelineLines("m1", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if want := "2027-01-16 09:30  File downloaded: will.pdf, by ann@example.com"; strings.Join(lines, "\n") != want {
		t.Fatalf("the timeline: %q, want %q", lines, want)
	}
}

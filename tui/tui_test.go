package tui_test

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
)

// One author's session, key by key, on each implementation: a create
// refused with SPEC.md's messages under the fields and then fixed, the plan
// limit explained, an edit, a postpone, a pause, the preview, and a delete
// that asks first.
func TestAnAuthorsSession(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			cfg, _ := b.open(t, e, ann)
			d := drive(t, cfg, 120, 40)
			d.waitFor("No messages yet")
			d.waitFor("Free plan · 0 messages · Remaining messages: 1")

			d.press("n")
			d.waitFor("Create Message")
			d.typeText("Rent")
			d.press("tab")
			d.typeText("Bob")
			d.press("tab")
			d.typeText("bob at example")
			d.press("ctrl+s")
			s := d.waitFor("Please enter a valid email address")
			if !strings.Contains(s, "Please enter a message") || strings.Contains(s, "Please enter a title") {
				t.Fatalf("want the recipient's and the message's errors only:\n%s", s)
			}
			for range "bob at example" {
				d.press("backspace")
			}
			d.typeText("bob@example.com")
			d.press("tab", "right", "tab")
			d.typeText("The key is under the blue pot.")
			d.press("ctrl+s")
			s = d.waitFor("The message is saved.")
			if !rowHas(s, "Rent", "Bob <bob@example.com>", "scheduled", "6M", "days") || strings.Contains(s, "Please enter") {
				t.Fatalf("the new message is not listed:\n%s", s)
			}

			d.waitFor("Remaining messages: 0")
			d.press("n")
			d.waitFor("Upgrade your plan")
			if strings.Contains(d.screen(), "Create Message") {
				t.Fatal("the form opened over the plan limit")
			}

			d.press("e")
			d.waitFor("Update Message")
			d.typeText(" and keys")
			d.press("ctrl+s")
			d.waitFor("The message is saved.")
			if !rowHas(d.screen(), "Rent and keys", "2026-09-01", "184 days") {
				t.Fatalf("the edit is not listed:\n%s", d.screen())
			}

			// On the day it was made (or edited to a new interval) a
			// postpone would not move the date: the TUI says so.
			d.press("p")
			d.waitFor("Postponing today would not move the date: it is already September 1, 2026.")
			e.Clock.Add(30 * 24 * time.Hour)
			d.press("p")
			s = d.waitFor("The message is postponed! It will be delivered on September 30, 2026.")
			if !rowHas(s, "Rent and keys", "2026-09-30", "183 days") {
				t.Fatalf("the postponed date is not listed:\n%s", s)
			}

			d.press("space")
			s = d.waitFor("The message is paused.")
			if !rowHas(s, "Rent and keys", "paused") {
				t.Fatalf("not paused:\n%s", s)
			}
			d.settle()
			got := mustList(t, e, ann)
			if len(got) != 1 || got[0].Title != "Rent and keys" || got[0].IsActive || got[0].Interval != core.Interval6M {
				t.Fatalf("the store holds %+v", got[0])
			}

			d.press("v")
			s = d.waitFor("To:       Bob <bob@example.com>")
			if !strings.Contains(s, "The key is under the blue pot.") || !strings.Contains(s, "What each recipient will get") || strings.Contains(s, "Rent and keys") {
				t.Fatalf("the preview:\n%s", s)
			}
			d.press("esc")

			d.press("d")
			d.waitFor("“Rent and keys”? It cannot be undone.")
			d.press("n")
			d.waitFor("The message is kept.")
			d.press("d", "y")
			d.waitFor("The message is deleted.")
			d.waitFor("No messages yet")
			if got := mustList(t, e, ann); len(got) != 0 {
				t.Fatalf("still stored: %d", len(got))
			}
		})
	}
}

// rowHas tells whether one line of the screen holds every part.
func rowHas(screen string, parts ...string) bool {
	for _, line := range strings.Split(screen, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

func mustList(t *testing.T, e *testenv.Env, a *account) []*core.Message {
	t.Helper()
	page, err := e.Messages.List(e.As(a.id), core.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Messages
}

func mustCreate(t testing.TB, e *testenv.Env, a *account, title string) *core.Message {
	t.Helper()
	m, err := e.Messages.Create(e.As(a.id), core.MessageInput{Title: title, Name: "Bob", Recipient: "bob@example.com", Body: "The key is under the blue pot."})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A draft survives a quit: written 0600 under the config directory the
// command names, and offered again at the next start.
func TestADraftComesBackAfterAQuit(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			cfg, _ := b.open(t, e, ann)
			cfg.DraftPath = filepath.Join(t.TempDir(), "sendlater", "draft.json")
			d := drive(t, cfg, 80, 24)
			d.waitFor("No messages yet")
			d.press("n")
			d.typeText("Half written")
			d.press("tab")
			d.typeText("Bo")
			d.settle()
			d.press("ctrl+c")
			d.settle()
			if !d.quit {
				t.Fatal("ctrl+c did not quit")
			}
			fi, err := os.Stat(cfg.DraftPath)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("draft file: %v %v", fi, err)
			}

			again := drive(t, cfg, 80, 24)
			again.waitFor("An unsent draft “Half written”")
			again.press("o")
			s := again.waitFor("Create Message")
			if !strings.Contains(s, "Half written") || !strings.Contains(s, "Bo") {
				t.Fatalf("the draft is not in the form:\n%s", s)
			}
			again.press("esc")
			again.settle()
			if _, err := os.Stat(cfg.DraftPath); !os.IsNotExist(err) {
				t.Fatalf("a discarded draft is still kept: %v", err)
			}
		})
	}
}

// The server going away shows in the status line; the app keeps running.
func TestANetworkErrorShowsInTheStatusLine(t *testing.T) {
	e, ann := newEnv(t)
	mustCreate(t, e, ann, "Rent")
	cfg, srv := backends[1].open(t, e, ann)
	d := drive(t, cfg, 80, 24)
	d.waitFor("Rent")
	srv.Close(t.Context())
	d.press("p")
	s := d.waitFor("did not answer")
	if !strings.Contains(s, "! The server at") || d.quit {
		t.Fatalf("want the error in the status line:\n%s", s)
	}
	d.press("down", "up")
	if !strings.Contains(d.screen(), "Rent") {
		t.Fatal("the list is gone after the error")
	}
}

// From 120x40 to 80x24 the screen keeps its parts: every line within the
// width, the key help at the bottom, exactly the height.
func TestTheLayoutHoldsOnResize(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e, ann := newEnv(t)
			mustCreate(t, e, ann, "Rent")
			cfg, _ := b.open(t, e, ann)
			d := drive(t, cfg, 120, 40)
			d.waitFor("Rent")
			assertFits(t, d.screen(), 120, 40)
			d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
			assertFits(t, d.screen(), 80, 24)
			d.press("e")
			d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
			assertFits(t, d.screen(), 120, 40)
			d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
			s := d.screen()
			assertFits(t, s, 80, 24)
			if !strings.Contains(s, "The message will be delivered on") {
				t.Fatalf("the form lost its date at 80x24:\n%s", s)
			}
		})
	}
}

func assertFits(t *testing.T, screen string, width, height int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != height {
		t.Fatalf("%d lines at %dx%d:\n%s", len(lines), width, height, screen)
	}
	for _, l := range lines {
		if lipgloss.Width(l) > width {
			t.Fatalf("a line wider than %d: %q", width, l)
		}
	}
	if last := lines[height-1]; !strings.Contains(last, "quit") && !strings.Contains(last, "save") {
		t.Fatalf("no key help at the bottom: %q", last)
	}
}

// The colours follow the terminal's background: the same screen, other
// colours, once the terminal says it is light.
func TestTheThemeFollowsTheBackground(t *testing.T) {
	e, ann := newEnv(t)
	mustCreate(t, e, ann, "Rent")
	cfg, _ := backends[0].open(t, e, ann)
	d := drive(t, cfg, 80, 24)
	d.waitFor("Rent")
	dark := d.m.Render()
	d.send(tea.BackgroundColorMsg{Color: color.White})
	light := d.m.Render()
	if dark == light || ansi.Strip(dark) != ansi.Strip(light) {
		t.Fatal("a light background changed nothing, or changed more than the colours")
	}
}

// A token revoked while the app runs: the live list says so and stops
// retrying until the user reloads.
func TestARevokedTokenStopsTheLiveList(t *testing.T) {
	e, ann := newEnv(t)
	mustCreate(t, e, ann, "Rent")
	cfg, _ := backends[1].open(t, e, ann)
	d := drive(t, cfg, 80, 24)
	d.waitFor("Rent")
	c := cfg.Messages.(interface{ SignOut(context.Context) error })
	if err := c.SignOut(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := d.waitFor("r reload")
	if !strings.Contains(s, "! Your session has ended.") || !strings.Contains(s, "Rent") {
		t.Fatalf("the screen:\n%s", s)
	}
}

package tui_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/tui"
)

// The harness drives the real model as a bubbletea program does: every
// message goes through Update, every command runs in its own goroutine and
// its message comes back through one queue, and the screen is what View
// renders (its styles stripped, for the assertions and the golden files).
// teatest/v2 is not served here; this is its equivalent.

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

type driver struct {
	t     testing.TB
	m     *tui.Model
	msgs  chan tea.Msg
	done  chan struct{}
	once  sync.Once
	stop  func() // ends the program's context and its commands
	quit  bool
	width int
	// patience is how long waitFor waits; zero: 10 s. Argon2id (a seal, an
	// open) may take seconds on a loaded machine.
	patience time.Duration
}

func drive(t testing.TB, cfg tui.Config, width, height int) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(cfg.Ctx)
	cfg.Ctx = ctx
	d := &driver{t: t, m: tui.New(cfg), msgs: make(chan tea.Msg, 1024), done: make(chan struct{})}
	d.stop = func() {
		cancel()
		d.once.Do(func() { close(d.done) })
	}
	t.Cleanup(d.stop)
	d.send(tea.WindowSizeMsg{Width: width, Height: height})
	d.run(d.m.Init())
	return d
}

// run runs cmd as the program would, in a goroutine.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

// send gives msg to Update (a batch runs each of its commands).
func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	case tea.WindowSizeMsg:
		d.width = msg.Width
	}
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// screen is what the terminal shows now, without styles.
func (d *driver) screen() string { return ansi.Strip(d.m.Render()) }

// waitFor handles the messages that come until the screen shows want.
func (d *driver) waitFor(want string) string {
	d.t.Helper()
	return d.waitUntil(want, func(s string) bool { return strings.Contains(s, want) })
}

func (d *driver) waitUntil(what string, ok func(screen string) bool) string {
	d.t.Helper()
	patience := d.patience
	if patience == 0 {
		patience = 10 * time.Second
	}
	deadline := time.After(patience)
	for {
		if s := d.screen(); ok(s) {
			return s
		}
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("the screen never showed %s:\n%s", what, d.screen())
		}
	}
}

// settle handles what comes in the next moment (a change the live list
// reports, a draft written).
func (d *driver) settle() {
	quiet := time.After(150 * time.Millisecond)
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-quiet:
			return
		}
	}
}

// press presses keys: a name bubbletea gives a key ("tab", "ctrl+s",
// "space", "esc", "enter", "down") or one printable character.
func (d *driver) press(keys ...string) {
	for _, k := range keys {
		d.send(keyPress(k))
	}
}

// typeText types s a character at a time.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyPress(k string) tea.KeyPressMsg {
	named := map[string]tea.KeyPressMsg{
		"tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "space": {Code: tea.KeySpace, Text: " "},
		"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
		"ctrl+s": {Code: 's', Mod: tea.ModCtrl}, "ctrl+c": {Code: 'c', Mod: tea.ModCtrl},
		"backspace": {Code: tea.KeyBackspace}, "ctrl+n": {Code: 'n', Mod: tea.ModCtrl}, "ctrl+r": {Code: 'r', Mod: tea.ModCtrl},
		"ctrl+p": {Code: 'p', Mod: tea.ModCtrl}, "ctrl+l": {Code: 'l', Mod: tea.ModCtrl},
		"ctrl+u": {Code: 'u', Mod: tea.ModCtrl}, "ctrl+x": {Code: 'x', Mod: tea.ModCtrl},
	}
	if m, ok := named[k]; ok {
		return m
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// golden compares the screen with testdata/name.golden (-update rewrites it).
func (d *driver) golden(name string) {
	d.t.Helper()
	path := filepath.Join("testdata", name+".golden")
	got := d.screen() + "\n"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			d.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			d.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		d.t.Fatalf("%v (run go test ./tui -update to write it)", err)
	}
	if got != string(want) {
		d.t.Errorf("the screen differs from %s (go test ./tui -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

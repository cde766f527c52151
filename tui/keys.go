package tui

import "charm.land/bubbles/v2/key"

// keyMap is every key of the app; each page shows the ones it answers
// (ShortHelp), so the help on screen is always what works there.
type keyMap struct {
	Up, Down, New, Edit, Postpone, Pause, Delete, Preview, Reload, Quit       key.Binding
	Timeline, Test, Hold, SetHold, EndHold, More, Less, HoldBack, FormPreview key.Binding
	Yes, No, OpenDraft, DropDraft                                             key.Binding
	Next, Prev, Left, Right, Save, Cancel, Back, Seal                         key.Binding
	Files, FormFiles, Attach, Remove, SaveFile                                key.Binding
}

func newKeyMap() keyMap {
	b := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], help))
	}
	return keyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑↓", "move")),
		Down:        key.NewBinding(key.WithKeys("down", "j")),
		New:         b("new", "n"),
		Edit:        key.NewBinding(key.WithKeys("e", "enter"), key.WithHelp("e", "edit")),
		Postpone:    b("postpone", "p"),
		Pause:       key.NewBinding(key.WithKeys("space", "t"), key.WithHelp("space", "pause")),
		Delete:      b("delete", "d"),
		Preview:     b("preview", "v"),
		Reload:      b("reload", "r"),
		Timeline:    b("history", "l"),
		Test:        b("test to me", "s"),
		Hold:        b("hold all", "H"),
		SetHold:     b("hold", "enter"),
		EndHold:     b("end hold", "ctrl+x"),
		HoldBack:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		More:        b("more keys", "?"),
		FormPreview: b("preview", "ctrl+p"),
		Less:        b("back to keys", "?"),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:         b("delete", "y"),
		No:          key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "keep")),
		OpenDraft:   b("open draft", "o"),
		DropDraft:   b("discard draft", "x"),
		Next:        key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next")),
		Prev:        key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "back")),
		Left:        key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", "interval")),
		Right:       key.NewBinding(key.WithKeys("right", "l")),
		Save:        b("save", "ctrl+s"),
		Seal:        b("seal", "ctrl+l"),
		Files:       b("files", "f"),
		FormFiles:   b("files", "ctrl+f"),
		Attach:      b("attach", "a"),
		Remove:      b("remove", "d"),
		SaveFile:    b("save a copy", "s"),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "discard")),
		Back:        key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "back")),
	}
}

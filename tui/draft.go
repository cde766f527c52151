package tui

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Draft is the form not yet sent: kept on disk after every change, so that
// a quit or a crash loses nothing, and offered again at the next start.
type Draft struct {
	// ID is the message being edited; empty for a new one.
	ID        string `json:"id,omitempty"`
	Title     string `json:"title"`
	Name      string `json:"name"`
	Recipient string `json:"recipient"`
	// Recipients are the rows of a form of several recipients; Name and
	// Recipient are then the first's.
	Recipients []DraftRecipient `json:"recipients,omitempty"`
	Interval   string           `json:"interval"`
	Body       string           `json:"message"`
	SavedAt    time.Time        `json:"savedAt"`
}

// drafts keeps the draft file: written whole through a temporary file
// (mode 0600: a draft holds a letter), the latest change winning when
// writes of two changes overlap.
type drafts struct {
	path    string
	mu      sync.Mutex
	written int
}

type draftLoadedMsg struct{ draft *Draft }

type draftSavedMsg struct{ err error }

// load reads the draft; none (or no draft file configured) is a nil draft.
func (d *drafts) load() tea.Cmd {
	return func() tea.Msg {
		if d.path == "" {
			return draftLoadedMsg{}
		}
		b, err := os.ReadFile(d.path)
		var dr Draft
		if err != nil || json.Unmarshal(b, &dr) != nil {
			return draftLoadedMsg{}
		}
		return draftLoadedMsg{&dr}
	}
}

// save writes dr as change number seq; an older change is dropped.
func (d *drafts) save(dr Draft, seq int) tea.Cmd {
	return func() tea.Msg {
		if d.path == "" {
			return nil
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if seq <= d.written {
			return nil
		}
		d.written = seq
		return draftSavedMsg{writeFile(d.path, dr)}
	}
}

// remove deletes the draft once it was sent or discarded.
func (d *drafts) remove(seq int) tea.Cmd {
	return func() tea.Msg {
		if d.path == "" {
			return nil
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		d.written = seq
		if err := os.Remove(d.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return draftSavedMsg{err}
		}
		return nil
	}
}

func writeFile(path string, dr Draft) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(dr)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".draft-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

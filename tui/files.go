package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// Attaching files in the TUI (docs/attachments.md, docs/cli.md): f on the
// list, or ctrl+f in the form of a saved message, opens the message's
// files: their names, sizes and the executable mark. a asks for a path and
// uploads the file through Files (the API's resumable protocol, as
// `sendlater messages attach` does), part after part, one tea.Cmd each,
// with a progress line; a part that fails is sent again from the offset
// the server has, up to three times. d removes the selected file. Starter's
// refusal shows the upgrade line, as sealing's does.

// File is one file of a message as the TUI shows it.
type File struct {
	ID, Name               string
	Size, Offset, PartSize int64
	Executable             bool
	ClientSealed           bool
	Complete               bool
}

// Files are the author's files of their messages: the API's client or the
// services over the store, adapted by cmd (web.AuthorFiles).
type Files interface {
	CreateFile(ctx context.Context, messageID, name string, size int64) (File, error)
	SendPart(ctx context.Context, messageID, fileID string, offset int64, part io.Reader) (File, error)
	ListFiles(ctx context.Context, messageID string) ([]File, error)
	DeleteFile(ctx context.Context, messageID, fileID string) error
	DownloadFile(ctx context.Context, messageID, fileID string) (io.ReadCloser, error)
}

// filesUpgrade is Starter's line.
const filesUpgrade = "Files go with messages on the Pro and Business plans: upgrade on the pricing page."

// uploadTries is how often one part is sent before the upload stops.
const uploadTries = 3

// upload is a file being sent.
type upload struct {
	path    string
	f       *os.File
	size    int64
	file    File // as the server last said; ID "" until made
	tries   int
	cancel  context.CancelFunc
	ctx     context.Context
	seq     int
	started bool
	temp    bool // f is a temporary file of sealed bytes, removed at the end
}

// filesView is the files page of one message.
type filesView struct {
	message *core.Message
	files   []File
	loaded  bool
	cursor  int
	asking  bool // the path is being typed
	path    textinput.Model
	up      *upload
	confirm *File
	problem string // the upgrade line, a sealed message's
	back    page   // where esc goes
	seq     int
	// saving is the file whose copy the typed path is for (s); nil: the
	// path is of a file to attach.
	saving *File
	// A sealed message's passphrase (files_sealed.go): checked, asked
	// for, being checked, and what waits for it.
	pass        *filePass
	askPass     bool
	checking    bool
	passIn      textinput.Model
	passProblem string
	pending     *pending
}

// filesMsg is a message's files read.
type filesMsg struct {
	id    string
	files []File
	err   error
}

// uploadMsg is a step of an upload: the file made, a part stored (or
// not), or the offset read again after a failure.
type uploadMsg struct {
	seq  int
	file File
	err  error
}

// fileGoneMsg is a file removed.
type fileGoneMsg struct {
	id, name string
	err      error
}

// openFiles opens the files page of msg, coming back to from on esc.
func (m *Model) openFiles(msg *core.Message, from page) tea.Cmd {
	if m.cfg.Files == nil {
		m.setStatus("Files are not offered here.", true)
		return nil
	}
	m.files = filesView{message: msg, back: from, seq: m.files.seq + 1}
	m.files.path = newInput("", "~/Documents/will.pdf", m.styles.dark)
	m.files.path.CharLimit = 4096
	m.files.path.SetWidth(max(m.width-4, 10))
	if msg.IsSealed() {
		m.files.problem = "The files of a sealed message are sealed here with its passphrase before they leave this computer; " +
			"their names stay readable to Sendlater."
	}
	m.page = pageFiles
	m.setStatus("", false)
	return m.loadFiles()
}

func (m *Model) loadFiles() tea.Cmd {
	id, files := m.files.message.ID, m.cfg.Files
	return func() tea.Msg {
		fs, err := files.ListFiles(m.cfg.Ctx, id)
		return filesMsg{id: id, files: fs, err: err}
	}
}

func (m *Model) gotFiles(msg filesMsg) {
	if m.page != pageFiles || m.files.message.ID != msg.id {
		return
	}
	if msg.err != nil {
		m.fail(msg.err)
		return
	}
	m.files.files, m.files.loaded = msg.files, true
	m.files.cursor = max(0, min(m.files.cursor, len(msg.files)-1))
}

// startUpload opens the typed path and makes the upload (a sealed
// message's file sealed first).
func (m *Model) startUpload() tea.Cmd {
	v := &m.files
	if v.saving != nil {
		return m.startSave()
	}
	p := expandPath(v.path.Value())
	if p == "" {
		m.setStatus("Type the path of a file.", true)
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		m.setStatus("The file could not be opened: "+pathError(err), true)
		return nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		m.setStatus("This is not a file: give the path of a file, not a folder.", true)
		return nil
	}
	v.asking = false
	v.path.Blur()
	if v.message.IsSealed() {
		f.Close() // sealed from the path, once the passphrase is checked
		return m.needPassphrase(pending{kind: pendingAttach, path: p})
	}
	return m.beginUpload(filepath.Base(p), f, st.Size(), false)
}

// beginUpload makes the upload of the size bytes of f as name.
func (m *Model) beginUpload(name string, f *os.File, size int64, temp bool) tea.Cmd {
	v := &m.files
	v.seq++
	ctx, cancel := context.WithCancel(m.cfg.Ctx)
	v.up = &upload{path: name, f: f, size: size, file: File{Name: name, Size: size}, ctx: ctx, cancel: cancel, seq: v.seq, temp: temp}
	m.setStatus(v.up.progress(), false)
	id, files, up := v.message.ID, m.cfg.Files, v.up
	return func() tea.Msg {
		file, err := files.CreateFile(up.ctx, id, name, up.size)
		return uploadMsg{seq: up.seq, file: file, err: err}
	}
}

// pathError is an open's error without Go's "open PATH:" prefix.
func pathError(err error) string {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return err.Error()
}

// progress is the upload's line.
func (u *upload) progress() string {
	if u.size == 0 {
		return "Uploading " + u.file.Name + "…"
	}
	return fmt.Sprintf("Uploading %s: %s of %s (%d%%)", u.file.Name, core.FormatBytes(u.file.Offset), core.FormatBytes(u.size),
		u.file.Offset*100/u.size)
}

// gotUpload takes a step of the upload and makes the next.
func (m *Model) gotUpload(msg uploadMsg) tea.Cmd {
	up := m.files.up
	if up == nil || msg.seq != up.seq {
		return nil
	}
	if msg.err != nil {
		return m.uploadFailed(up, msg.err)
	}
	if msg.file.Offset > up.file.Offset || !up.started {
		up.tries = 0
	}
	up.file, up.started = msg.file, true
	if up.file.Complete {
		m.endUpload()
		size := up.size
		if up.temp { // sealed: the size the recipients open
			size = core.ShownOpenedFileSize(size)
		}
		m.setStatus(fmt.Sprintf("Attached %s (%s).", up.file.Name, core.FormatBytes(size)), false)
		return m.loadFiles()
	}
	m.setStatus(up.progress(), false)
	return m.sendPart(up)
}

func (m *Model) sendPart(up *upload) tea.Cmd {
	id, files, file := m.files.message.ID, m.cfg.Files, up.file
	n := min(file.PartSize, up.size-file.Offset)
	if file.PartSize <= 0 {
		n = up.size - file.Offset
	}
	return func() tea.Msg {
		next, err := files.SendPart(up.ctx, id, file.ID, file.Offset, io.NewSectionReader(up.f, file.Offset, n))
		return uploadMsg{seq: up.seq, file: next, err: err}
	}
}

// uploadFailed asks the server where the upload stands and goes on from
// there, unless the error is one a retry would not mend.
func (m *Model) uploadFailed(up *upload, err error) tea.Cmd {
	code := core.ErrorCode(err)
	retry := up.file.ID != "" && up.ctx.Err() == nil && up.tries+1 < uploadTries
	switch code {
	case core.EFeatureNotIncluded, core.EPlanLimit, core.EValidation, core.EAttachmentNotFound, core.EMessageNotFound,
		core.EInvalidToken, core.EInsufficientScope, core.ETooLarge:
		retry = false
	}
	if !retry {
		m.endUpload()
		if code == core.EFeatureNotIncluded {
			m.files.problem = filesUpgrade
		}
		m.fail(err)
		return m.loadFiles()
	}
	up.tries++
	m.setStatus(fmt.Sprintf("%s; trying again from where the server has it (%d of %d)…", core.ErrorMessageOrText(err), up.tries+1, uploadTries), true)
	id, files, fileID := m.files.message.ID, m.cfg.Files, up.file.ID
	return func() tea.Msg {
		list, lerr := files.ListFiles(up.ctx, id)
		if lerr != nil {
			return uploadMsg{seq: up.seq, err: err}
		}
		for _, f := range list {
			if f.ID == fileID {
				return uploadMsg{seq: up.seq, file: f}
			}
		}
		return uploadMsg{seq: up.seq, err: core.ErrAttachmentNotFound()}
	}
}

func (m *Model) endUpload() {
	if up := m.files.up; up != nil {
		up.cancel()
		up.f.Close()
		if up.temp {
			os.Remove(up.f.Name())
		}
		m.files.up = nil
	}
}

// removeFile deletes f (an upload under way too).
func (m *Model) removeFile(f File) tea.Cmd {
	id, files := m.files.message.ID, m.cfg.Files
	m.setStatus("Removing "+f.Name+"…", false)
	return func() tea.Msg {
		return fileGoneMsg{id: f.ID, name: f.Name, err: files.DeleteFile(m.cfg.Ctx, id, f.ID)}
	}
}

func (m *Model) gotFileGone(msg fileGoneMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err)
	} else {
		m.setStatus(msg.name+" is removed, with its bytes.", false)
	}
	if m.page != pageFiles {
		return nil
	}
	if msg.err == nil {
		v := &m.files
		for i, f := range v.files {
			if f.ID == msg.id {
				v.files = append(v.files[:i:i], v.files[i+1:]...)
				break
			}
		}
		v.cursor = max(0, min(v.cursor, len(v.files)-1))
	}
	return m.loadFiles()
}

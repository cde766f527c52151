package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/sendlater/sendlater/core"
)

// The files of a sealed message (docs/sealed.md, "Files (v1)"): attaching
// seals the file here with the message's passphrase before any byte
// leaves (core.SealFile, into a temporary file of sealed bytes the upload
// reads its parts from), and saving a copy of one opens it with the
// passphrase (core.OpenFile) into a temporary file beside the target,
// linked into place only once every chunk opened. The passphrase is the
// one the form holds (a letter opened or sealed there) or is asked for, and
// is always checked against the message's envelope first, so that a typo
// never seals files no one can open. Argon2id runs in a tea.Cmd.

// filePass is a checked passphrase of the page's message: the key new
// files are sealed with (one salt for the page, one derivation), and the
// keys files open with.
type filePass struct {
	passphrase string
	seal       *core.SealedFileKey
	open       *core.SealedFileKeys
}

// pendingKind is what waits for the passphrase.
type pendingKind int

const (
	pendingAttach pendingKind = iota + 1
	pendingSave
)

// pending is an attach or a save that waits for the passphrase.
type pending struct {
	kind pendingKind
	path string
	file File
}

// passCheckedMsg is a passphrase checked against the envelope (or not).
type passCheckedMsg struct {
	seq  int
	pass *filePass
	held bool // the form's passphrase, not typed here
	err  error
}

// sealedReadyMsg is a file sealed into a temporary file.
type sealedReadyMsg struct {
	seq  int
	name string
	tmp  *os.File
	size int64
	err  error
}

// savedMsg is a copy of a file written (or not).
type savedMsg struct {
	name, path string
	err        error
}

// heldPassphrase is the passphrase the form holds for the page's message:
// "" when none (the list's f, or a letter not opened).
func (m *Model) heldPassphrase() string {
	if ed := m.form.editing; ed != nil && ed.ID == m.files.message.ID && m.form.seal != nil {
		return m.form.seal.passphrase
	}
	return ""
}

// needPassphrase runs p once the page has a checked passphrase: at once,
// after checking the form's, or after asking for one.
func (m *Model) needPassphrase(p pending) tea.Cmd {
	v := &m.files
	v.pending = &p
	if v.pass != nil {
		return m.runPending()
	}
	if held := m.heldPassphrase(); held != "" {
		v.checking = true
		return checkFilePassCmd(v.message, held, true, v.seq)
	}
	return m.askPassphrase("")
}

func (m *Model) askPassphrase(problem string) tea.Cmd {
	v := &m.files
	v.askPass, v.passProblem = true, problem
	v.passIn = newInput("", "", m.styles.dark)
	v.passIn.EchoMode = textinput.EchoPassword
	v.passIn.EchoCharacter = '•'
	v.passIn.CharLimit = 1024
	v.passIn.SetWidth(max(m.width-4, 10))
	m.setStatus("", false)
	return v.passIn.Focus()
}

// checkFilePassCmd checks passphrase against msg's envelope and derives
// the key of the files it seals.
func checkFilePassCmd(msg *core.Message, passphrase string, held bool, seq int) tea.Cmd {
	l, _ := msg.Sealed()
	id := msg.ID
	return func() tea.Msg {
		env, err := core.ParseSealed(l.Envelope)
		if err == nil {
			_, err = core.Open(passphrase, id, env)
		}
		if err != nil {
			return passCheckedMsg{seq: seq, held: held, err: err}
		}
		k, err := core.NewSealedFileKey(passphrase, core.DefaultSealParams)
		return passCheckedMsg{seq: seq, held: held, err: err,
			pass: &filePass{passphrase: passphrase, seal: k, open: core.NewSealedFileKeys(passphrase)}}
	}
}

func (m *Model) gotPassChecked(msg passCheckedMsg) tea.Cmd {
	v := &m.files
	if m.page != pageFiles || msg.seq != v.seq || v.pending == nil {
		return nil
	}
	v.checking = false
	switch {
	case msg.err != nil && msg.held:
		return m.askPassphrase("The passphrase this form holds does not open the message as it is stored: enter the message's passphrase.")
	case errors.Is(msg.err, core.ErrWrongPassphrase):
		v.passProblem = "This passphrase does not open the message. Check it against your hint and try again."
		v.passIn.SetValue("")
		return nil
	case msg.err != nil:
		v.askPass, v.pending = false, nil
		m.fail(msg.err)
		return nil
	}
	v.askPass, v.passProblem, v.pass = false, "", msg.pass
	v.passIn.Blur()
	return m.runPending()
}

// runPending runs the attach or save that waited for the passphrase.
func (m *Model) runPending() tea.Cmd {
	v := &m.files
	p := v.pending
	v.pending = nil
	switch {
	case p == nil:
		return nil
	case p.kind == pendingAttach:
		return m.sealThenUpload(p.path)
	}
	return m.saveFile(p.file, p.path)
}

// passKey answers a key while the passphrase is asked for.
func (m *Model) passKey(k tea.KeyPressMsg) tea.Cmd {
	v := &m.files
	switch k.String() {
	case "esc":
		v.askPass, v.pending, v.passProblem = false, nil, ""
		v.passIn.Blur()
		m.setStatus("Nothing was attached or saved.", false)
		return nil
	case "enter":
		if v.checking {
			return nil
		}
		if v.passIn.Value() == "" {
			v.passProblem = "Please enter the passphrase."
			return nil
		}
		v.checking, v.passProblem = true, ""
		return checkFilePassCmd(v.message, v.passIn.Value(), false, v.seq)
	}
	var cmd tea.Cmd
	v.passIn, cmd = v.passIn.Update(k)
	return cmd
}

// sealThenUpload seals the file at path into a temporary file, then
// uploads that.
func (m *Model) sealThenUpload(path string) tea.Cmd {
	v := &m.files
	name := filepath.Base(path)
	m.setStatus("Sealing "+name+" with the message's passphrase…", false)
	key, id, seq := v.pass.seal, v.message.ID, v.seq
	return func() tea.Msg {
		src, err := os.Open(path)
		if err != nil {
			return sealedReadyMsg{seq: seq, name: name, err: err}
		}
		defer src.Close()
		tmp, err := os.CreateTemp("", "sendlater-sealed-*")
		if err != nil {
			return sealedReadyMsg{seq: seq, name: name, err: err}
		}
		size, err := core.SealFile(tmp, src, key, id)
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return sealedReadyMsg{seq: seq, name: name, err: err}
		}
		return sealedReadyMsg{seq: seq, name: name, tmp: tmp, size: size}
	}
}

func (m *Model) gotSealedReady(msg sealedReadyMsg) tea.Cmd {
	if m.page != pageFiles || msg.seq != m.files.seq || m.files.up != nil {
		if msg.tmp != nil {
			msg.tmp.Close()
			os.Remove(msg.tmp.Name())
		}
		return nil
	}
	if msg.err != nil {
		m.setStatus("The file could not be sealed: "+pathError(msg.err), true)
		return nil
	}
	return m.beginUpload(msg.name, msg.tmp, msg.size, true)
}

// startSave checks the path typed for a copy of v.saving and writes it,
// after the passphrase for a sealed file.
func (m *Model) startSave() tea.Cmd {
	v := &m.files
	p := expandPath(v.path.Value())
	f := v.saving
	if p == "" || f == nil {
		m.setStatus("Type the path to save the file to.", true)
		return nil
	}
	if _, err := os.Lstat(p); err == nil {
		m.setStatus("There is a file at this path already: give another.", true)
		return nil
	}
	v.asking, v.saving = false, nil
	v.path.Blur()
	if f.ClientSealed {
		return m.needPassphrase(pending{kind: pendingSave, path: p, file: *f})
	}
	return m.saveFile(*f, p)
}

// saveFile downloads f into a temporary file beside path, opening it when
// sealed, and links it to path once whole: a failure leaves nothing.
func (m *Model) saveFile(f File, path string) tea.Cmd {
	v := &m.files
	m.setStatus("Saving "+f.Name+"…", false)
	files, id, ctx := m.cfg.Files, v.message.ID, m.cfg.Ctx
	var keys *core.SealedFileKeys
	if f.ClientSealed && v.pass != nil {
		keys = v.pass.open
	}
	return func() tea.Msg {
		return savedMsg{name: f.Name, path: path, err: writeCopy(ctx, files, id, f, keys, path)}
	}
}

func writeCopy(ctx context.Context, files Files, messageID string, f File, keys *core.SealedFileKeys, path string) error {
	rc, err := files.DownloadFile(ctx, messageID, f.ID)
	if err != nil {
		return err
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sendlater-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if keys != nil {
		_, err = core.OpenFile(tmp, rc, keys, messageID)
	} else {
		_, err = io.Copy(tmp, rc)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A link never replaces a file that appeared at path meanwhile.
	return os.Link(tmp.Name(), path)
}

func (m *Model) gotSaved(msg savedMsg) {
	switch {
	case errors.Is(msg.err, core.ErrWrongPassphrase):
		m.setStatus(msg.name+" does not open with the message's passphrase: it was sealed with another, or changed. Nothing was saved.", true)
	case core.ErrorCode(msg.err) == core.EInvalid:
		m.setStatus(msg.name+" is not a sealed file this version of Sendlater can open. Nothing was saved.", true)
	case msg.err != nil:
		var pe *os.PathError
		var le *os.LinkError
		if errors.As(msg.err, &pe) || errors.As(msg.err, &le) {
			m.setStatus("The copy could not be written: "+pathError(msg.err), true)
			return
		}
		m.fail(msg.err)
	default:
		m.setStatus("Saved "+msg.name+" to "+msg.path+".", false)
	}
}

// expandPath is a typed path, ~/ expanded.
func expandPath(p string) string {
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	return p
}

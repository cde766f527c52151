package tui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sendlater/sendlater/core"
)

// Sealing in the TUI (docs/sealed.md): the form's ctrl+l opens the seal
// page, which asks for a passphrase (masked, twice) and an optional hint,
// refuses a weak one with the web app's estimate and words
// (core.CheckPassphrase), and says that the title and recipients stay
// readable to the server. The letter is sealed when the form is saved or
// previewed, with core.Seal (Argon2id, then AES-256-GCM, the envelope the
// browser writes), in a tea.Cmd: the update loop never waits on Argon2id.
// A sealed message being edited shows no text until ctrl+l opens it with its
// passphrase (core.Open, in a tea.Cmd too); it is sealed again when saved.
// The passphrase never leaves this process, and the letter's text is never
// written to the draft file while it is to be sealed.

// sealChoice is the passphrase and hint a letter is sealed with on save.
type sealChoice struct {
	passphrase, hint string
}

// sealMode is what the seal page asks for.
type sealMode int

const (
	sealNew    sealMode = iota // a passphrase, twice, and a hint
	sealUnlock                 // the passphrase that opens the letter being edited
)

// sealView is the seal page.
type sealView struct {
	mode    sealMode
	pass    textinput.Model
	again   textinput.Model
	hint    textinput.Model
	focus   int
	errors  map[string]string
	busy    bool // Argon2id runs (an unlock)
	canDrop bool // the letter may be left unsealed (ctrl+x)
	width   int
}

func newSealView(mode sealMode, was *sealChoice, canDrop, dark bool) sealView {
	v := sealView{mode: mode, canDrop: canDrop}
	secret := func() textinput.Model {
		in := newInput("", "", dark)
		in.EchoMode = textinput.EchoPassword
		in.EchoCharacter = '•'
		in.CharLimit = 1024
		return in
	}
	v.pass, v.again = secret(), secret()
	v.hint = newInput("", "", dark)
	v.hint.CharLimit = core.MaxSealHintLen
	if was != nil {
		v.pass.SetValue(was.passphrase)
		v.again.SetValue(was.passphrase)
		v.hint.SetValue(was.hint)
	}
	v.focusOn(0)
	return v
}

// inputs are the page's fields in tab order.
func (v *sealView) inputs() []*textinput.Model {
	if v.mode == sealUnlock {
		return []*textinput.Model{&v.pass}
	}
	return []*textinput.Model{&v.pass, &v.again, &v.hint}
}

func (v *sealView) focusOn(i int) tea.Cmd {
	ins := v.inputs()
	v.focus = (i + len(ins)) % len(ins)
	for _, in := range ins {
		in.Blur()
	}
	return ins[v.focus].Focus()
}

func (v *sealView) SetSize(width int) {
	v.width = width
	for _, in := range v.inputs() {
		in.SetWidth(max(width-4, 10))
	}
}

// sealErrors are the seal page's checks, the web app's (seal-fields.tsx,
// sealErrors; testdata/sealed/checks.json holds both to the same words): a
// passphrase strong enough, typed the same twice, and a hint
// that does not give it away. The server never sees the passphrase, so only
// the client can check it.
func sealErrors(passphrase, again, hint string) map[string]string {
	f := map[string]string{}
	var e *core.Error
	if err := core.CheckPassphrase(passphrase); errors.As(err, &e) {
		f["passphrase"] = e.Fields["passphrase"]
	}
	if again != passphrase {
		f["passphraseConfirm"] = "The two passphrases differ"
	}
	if p := strings.TrimSpace(passphrase); p != "" && strings.Contains(strings.ToLower(hint), strings.ToLower(p)) {
		f["sealed.hint"] = "The hint contains the passphrase: anyone who reads the email could open the message"
	}
	return f
}

// strength is the line under the passphrase: its estimate, as the web
// app's meter says it.
func strength(passphrase string) string {
	bits := core.PassphraseBits(passphrase)
	if bits >= core.SealMinBits {
		return fmt.Sprintf("Strong enough: about %d bits.", bits)
	}
	return fmt.Sprintf("About %d bits of the %d needed.", bits, core.SealMinBits)
}

// sealNote says what a seal means, before the passphrase is typed.
const sealNote = "Only someone with the passphrase can read the letter: share it with your recipients yourself " +
	"(on paper, in a will, in person). Sendlater never receives it and cannot recover it: if it is lost, so is the letter."

// sealReadable says what the server still reads.
const sealReadable = "The title and the recipients stay readable to Sendlater, which delivers the message; " +
	"the letter's text is never kept in the draft file."

func (v *sealView) View(st styles) string {
	wrap := func(s string) []string {
		return strings.Split(ansi.Wordwrap(s, max(v.width-4, 20), ""), "\n")
	}
	var lines []string
	add := func(ls ...string) {
		for _, l := range ls {
			lines = append(lines, "  "+l)
		}
	}
	label := func(i int, s string) string {
		if v.focus == i {
			return st.Label.Render("› " + s)
		}
		return st.Label.Render("  " + s)
	}
	errLine := func(key string) {
		if e := v.errors[key]; e != "" {
			for _, l := range wrap(e) {
				lines = append(lines, "  "+st.Error.Render(l))
			}
		}
	}
	if v.mode == sealUnlock {
		add(wrap("This message is sealed. Enter its passphrase to read and edit the letter here; it is sealed again when you save. The title, recipients and delivery date can be changed without it.")...)
		lines = append(lines, "", label(0, "Passphrase of the sealed letter"), "  "+v.pass.View())
		errLine("passphrase")
		if v.busy {
			add(st.Dim.Render("Opening the letter (Argon2id, 64 MiB)…"))
		}
		return strings.Join(lines, "\n")
	}
	add(wrap(sealNote)...)
	add(wrap(sealReadable)...)
	lines = append(lines, "", label(0, "Passphrase"), "  "+v.pass.View())
	errLine("passphrase")
	add(st.Dim.Render(strength(v.pass.Value())))
	lines = append(lines, label(1, "Passphrase again"), "  "+v.again.View())
	errLine("passphraseConfirm")
	lines = append(lines, label(2, "Hint for the recipients (optional)"), "  "+v.hint.View())
	errLine("sealed.hint")
	add(wrap(st.Dim.Render("The hint is in the email, for anyone who reads it: it must help your recipients, not give the passphrase away."))...)
	return strings.Join(lines, "\n")
}

// update handles a key the seal page's root did not take.
func (v *sealView) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "tab", "down":
			return v.focusOn(v.focus + 1)
		case "shift+tab", "up":
			return v.focusOn(v.focus - 1)
		}
	}
	in := v.inputs()[v.focus]
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	if in.Value() != before {
		// What refused the field is out of date once it changes.
		delete(v.errors, []string{"passphrase", "passphraseConfirm", "sealed.hint"}[v.focus])
	}
	return cmd
}

// openedMsg is a sealed letter opened with a passphrase (or not).
type openedMsg struct {
	id, text, passphrase string
	err                  error
}

// openSealCmd opens m's letter with passphrase, in a tea.Cmd (Argon2id).
func openSealCmd(m *core.Message, passphrase string) tea.Cmd {
	l, _ := m.Sealed()
	id := m.ID
	return func() tea.Msg {
		env, err := core.ParseSealed(l.Envelope)
		if err != nil {
			return openedMsg{id: id, err: err}
		}
		text, err := core.Open(passphrase, id, env)
		return openedMsg{id: id, text: string(text), passphrase: passphrase, err: err}
	}
}

// sealLetter seals body for message id: the letter a save or a preview
// sends in place of the text.
func sealLetter(c sealChoice, id, body string) (*core.SealedLetter, error) {
	env, err := core.Seal(c.passphrase, id, []byte(body), core.DefaultSealParams)
	if err != nil {
		return nil, err
	}
	return &core.SealedLetter{Envelope: env.String(), Hint: strings.TrimSpace(c.hint)}, nil
}

// sealUpgrade is what a plan without sealing is told (the web app's words).
const sealUpgrade = "Sealed messages, which only your recipients can open, are part of the Pro and Business plans: upgrade on the pricing page."

// maySeal tells whether the form may seal: a Pro or Business plan that is
// active (the server's rule, requireSealing), or a message sealed already
// (a lapsed plan keeps its seals, and re-seals them).
func (m *Model) maySeal() bool {
	if ed := m.form.editing; ed != nil && ed.IsSealed() {
		return true
	}
	return m.user != nil && m.user.PlanIsActive && m.user.MessageLimit == 0
}

// openSeal is the form's ctrl+l: the seal page, or the upgrade hint.
func (m *Model) openSeal() tea.Cmd {
	f := &m.form
	switch {
	case f.locked:
		m.seal = newSealView(sealUnlock, nil, false, m.styles.dark)
	case !m.maySeal():
		f.problem = sealUpgrade
		return nil
	default:
		m.seal = newSealView(sealNew, f.seal, f.seal != nil, m.styles.dark)
	}
	m.seal.SetSize(m.width)
	m.page = pageSeal
	m.setStatus("", false)
	return m.seal.inputs()[0].Focus()
}

func (m *Model) sealKey(k tea.KeyPressMsg) tea.Cmd {
	v := &m.seal
	switch {
	case k.String() == "ctrl+c":
		return tea.Quit
	case k.String() == "esc":
		m.page = pageForm
		m.setStatus("", false)
		return nil
	case v.busy:
		return nil
	case k.String() == "ctrl+x" && v.mode == sealNew && v.canDrop:
		m.form.seal = nil
		m.page = pageForm
		m.setStatus("The message will be saved unsealed: its text is readable to Sendlater.", false)
		return m.keepDraft()
	case k.String() == "enter" && v.mode == sealUnlock:
		if v.pass.Value() == "" {
			v.errors = map[string]string{"passphrase": "Please enter the passphrase."}
			return nil
		}
		v.busy, v.errors = true, nil
		return openSealCmd(m.form.editing, v.pass.Value())
	case k.String() == "ctrl+s" || k.String() == "enter" && v.focus == len(v.inputs())-1:
		if errs := sealErrors(v.pass.Value(), v.again.Value(), v.hint.Value()); len(errs) > 0 {
			v.errors = errs
			return nil
		}
		m.form.seal = &sealChoice{passphrase: v.pass.Value(), hint: strings.TrimSpace(v.hint.Value())}
		m.page = pageForm
		m.setStatus("The letter will be sealed with your passphrase when you save.", false)
		// The draft file loses the text it may hold.
		return m.keepDraft()
	case k.String() == "enter":
		return v.focusOn(v.focus + 1)
	}
	return v.update(k)
}

// gotOpened takes a letter opened (or not) on the seal page.
func (m *Model) gotOpened(msg openedMsg) {
	if m.page != pageSeal || m.form.editing == nil || m.form.editing.ID != msg.id {
		return
	}
	m.seal.busy = false
	switch {
	case errors.Is(msg.err, core.ErrWrongPassphrase):
		m.seal.errors = map[string]string{"passphrase": "This passphrase does not open the letter. Check it against your hint and try again."}
		return
	case msg.err != nil:
		m.seal.errors = map[string]string{"passphrase": "This version of Sendlater cannot open this letter."}
		return
	}
	f := &m.form
	l, _ := f.editing.Sealed()
	f.locked = false
	f.seal = &sealChoice{passphrase: msg.passphrase, hint: l.Hint}
	f.opened = &openedLetter{text: msg.text, seal: *f.seal}
	f.body.Placeholder = ""
	f.body.SetValue(msg.text)
	m.page = pageForm
	m.setStatus("The letter is open here; it is sealed again when you save.", false)
}

// newPassphrase tells whether a save seals the letter opened in the form
// with another passphrase than the one that opened it.
func (f *formView) newPassphrase() bool {
	return f.opened != nil && f.seal != nil && f.seal.passphrase != f.opened.seal.passphrase
}

// openedLetter is a sealed letter as it was opened in the form: when its
// text and seal are unchanged, a save leaves the stored envelope.
type openedLetter struct {
	text string
	seal sealChoice
}

package mailer

import (
	"cmp"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/sendlater/sendlater/core"
)

//go:embed templates
var templateFiles embed.FS

// The email kinds; each has templates/<kind>.html (defining "content", maybe
// "footer") and templates/<kind>.txt (defining "subject", "content", maybe
// "footer"), rendered inside the shared layouts.
const (
	kindVerifyEmail    = "verify_email"
	kindPasswordReset  = "password_reset"
	kindEmailChanged   = "email_changed"
	kindAccountClaimed = "account_claimed"
	kindReminder       = "reminder"
	kindDelivery       = "delivery"
	kindDeliveryFailed = "delivery_failed"
	kindContact        = "contact"
	kindSummary        = "operator_summary"
	kindReminderAddr   = "reminder_address"
	kindNotice         = "recipient_notice"
	kindSecurityNotice = "security_notice"
	kindNewSignIn      = "new_sign_in"
	kindBouncing       = "recipient_bouncing"
)

var kinds = []string{
	kindVerifyEmail, kindPasswordReset, kindEmailChanged, kindAccountClaimed, kindReminder,
	kindDelivery, kindDeliveryFailed, kindContact, kindSummary, kindReminderAddr, kindNotice, kindSecurityNotice, kindNewSignIn,
	kindBouncing,
}

// dateLayout shows a time the way an author reads it, in their zone:
// "Monday, 2 March 2026 at 14:00 CET".
const dateLayout = "Monday, 2 January 2006 at 15:04 MST"

// Templates composes every email of the product from the embedded templates.
// It implements core.Emails and is safe for concurrent use.
type Templates struct {
	app     string
	baseURL string
	html    map[string]*htmltemplate.Template
	text    map[string]*texttemplate.Template
}

var _ core.Emails = (*Templates)(nil)

// templateData is what every template sees: the app name, its base URL and
// the kind's data as D.
type templateData struct {
	App     string
	BaseURL string
	D       any
}

type button struct{ URL, Label string }

// NewTemplates parses the embedded templates once. appName is shown in
// headers, subjects and footers; baseURL links the footer to the site.
func NewTemplates(appName, baseURL string) (*Templates, error) {
	funcs := map[string]any{
		"when": formatWhen,
		"addr": formatAddress,
		"name": displayName,
	}
	htmlFuncs := htmltemplate.FuncMap{
		"lines":  htmlLines,
		"button": func(url, label string) button { return button{url, label} },
		"brand":  brandHTML,
	}
	for k, f := range funcs {
		htmlFuncs[k] = f
	}
	htmlLayout, err := htmltemplate.New("").Funcs(htmlFuncs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("mailer: parse HTML layout: %w", err)
	}
	textLayout, err := texttemplate.New("").Funcs(funcs).ParseFS(templateFiles, "templates/layout.txt")
	if err != nil {
		return nil, fmt.Errorf("mailer: parse text layout: %w", err)
	}
	t := &Templates{
		app:     appName,
		baseURL: strings.TrimRight(baseURL, "/"),
		html:    make(map[string]*htmltemplate.Template, len(kinds)),
		text:    make(map[string]*texttemplate.Template, len(kinds)),
	}
	for _, kind := range kinds {
		h, err := htmltemplate.Must(htmlLayout.Clone()).ParseFS(templateFiles, "templates/"+kind+".html")
		if err != nil {
			return nil, fmt.Errorf("mailer: parse %s.html: %w", kind, err)
		}
		x, err := texttemplate.Must(textLayout.Clone()).ParseFS(templateFiles, "templates/"+kind+".txt")
		if err != nil {
			return nil, fmt.Errorf("mailer: parse %s.txt: %w", kind, err)
		}
		if h.Lookup("content") == nil || x.Lookup("content") == nil || x.Lookup("subject") == nil {
			return nil, fmt.Errorf("mailer: templates of %s must define content and subject", kind)
		}
		t.html[kind], t.text[kind] = h, x
	}
	return t, nil
}

// deliveryView is what the delivery templates see: every value worked out
// beforehand, one field each. A pass renders one delivery email a recipient,
// and each function call or field of a field the templates evaluate costs
// reflection (docs/benchmarks.md).
type deliveryView struct {
	App, BaseURL    string
	Salutation      string // core.Salutation: "" when the body greets
	Author          string // the author's name, or their address without one
	AuthorAddress   string
	AuthorFull      string // "Name <address>"
	Body            string
	BodyHTML        htmltemplate.HTML // Body escaped, line breaks as <br>
	Written         string            // when the message was written, in the author's zone
	UnsubscribeLink string
	// Sealed: the message is sealed; the email shows the Hint and the
	// OpenLink instead of a body.
	Sealed         bool
	Hint, OpenLink string
	OpenFor        string // how long the link opens: "a year"
	// Files are the message's files with the recipient's links; FilesFor
	// is how long the links download: "90 days".
	Files    []core.DeliveryFile
	FilesFor string
}

// render executes the subject, text and HTML templates of kind into a new
// Email to one recipient.
func (t *Templates) render(kind string, to core.Address, d any) (*core.Email, error) {
	return t.renderView(kind, to, templateData{App: t.app, BaseURL: t.baseURL, D: d}, 0)
}

// renderView is render with the templates' data as given: a templateData,
// or a kind's own view with App and BaseURL for the layout. extra is the
// length of what the data adds to the layout (a body), so that each part
// is written into memory of about its size, allocated once.
func (t *Templates) renderView(kind string, to core.Address, data any, extra int) (*core.Email, error) {
	var subject, text, html strings.Builder
	text.Grow(1<<9 + extra)
	html.Grow(3<<10 + extra + extra/8)
	if err := t.text[kind].ExecuteTemplate(&subject, "subject", data); err != nil {
		return nil, fmt.Errorf("mailer: render %s subject: %w", kind, err)
	}
	if err := t.text[kind].ExecuteTemplate(&text, "layout", data); err != nil {
		return nil, fmt.Errorf("mailer: render %s text: %w", kind, err)
	}
	if err := t.html[kind].ExecuteTemplate(&html, "layout", data); err != nil {
		return nil, fmt.Errorf("mailer: render %s HTML: %w", kind, err)
	}
	return &core.Email{
		To:      []core.Address{to},
		Subject: oneLine(strings.TrimSpace(subject.String())),
		Text:    text.String(),
		HTML:    html.String(),
	}, nil
}

// VerifyEmail asks a new user to confirm their address.
func (t *Templates) VerifyEmail(d core.ActionEmail) (*core.Email, error) {
	return t.render(kindVerifyEmail, d.To, d)
}

// PasswordReset sends a link to choose a new password, valid for one hour.
func (t *Templates) PasswordReset(d core.ActionEmail) (*core.Email, error) {
	return t.render(kindPasswordReset, d.To, d)
}

// EmailChanged tells the old address about an email change, with a link
// that undoes it.
func (t *Templates) EmailChanged(d core.EmailChangedEmail) (*core.Email, error) {
	return t.render(kindEmailChanged, d.To, d)
}

// AccountClaimed tells an address that the unverified account someone had
// started with it is now its owner's, emptied.
func (t *Templates) AccountClaimed(d core.AccountClaimedEmail) (*core.Email, error) {
	return t.render(kindAccountClaimed, d.To, d)
}

// SecurityNotice tells an account's owner that its sign-in changed: the
// authenticator app on or off, a recovery code used, an operator's reset.
func (t *Templates) SecurityNotice(d core.SecurityNoticeEmail) (*core.Email, error) {
	return t.render(kindSecurityNotice, d.To, d)
}

// NewSignIn tells an account's owner of a sign-in from a device and
// network the account had not signed in from, with how to secure it.
func (t *Templates) NewSignIn(d core.NewSignInEmail) (*core.Email, error) {
	return t.render(kindNewSignIn, d.To, d)
}

// Reminder tells the author when a message will be delivered and how to
// postpone it. Its copy to the second reminder address (d.CopyOf set)
// offers RFC 8058 one-click refusal, in its headers and its footer.
func (t *Templates) Reminder(d core.ReminderEmail) (*core.Email, error) {
	e, err := t.render(kindReminder, d.To, d)
	if err != nil {
		return nil, err
	}
	refusable(e, d.UnsubscribeLink)
	return e, nil
}

// ReminderAddress asks a second reminder address to confirm that it wants
// the author's reminders, with a one-click refusal.
func (t *Templates) ReminderAddress(d core.ReminderAddressEmail) (*core.Email, error) {
	e, err := t.render(kindReminderAddr, d.To, d)
	if err != nil {
		return nil, err
	}
	refusable(e, d.UnsubscribeLink)
	return e, nil
}

// RecipientNotice tells a recipient that a message waits for them, with a
// one-click refusal of every email.
func (t *Templates) RecipientNotice(d core.RecipientNoticeEmail) (*core.Email, error) {
	e, err := t.render(kindNotice, d.To, d)
	if err != nil {
		return nil, err
	}
	refusable(e, d.UnsubscribeLink)
	return e, nil
}

// RecipientBouncing tells the author that a recipient's address returned
// an email for good, and asks them to change it.
func (t *Templates) RecipientBouncing(d core.RecipientBouncingEmail) (*core.Email, error) {
	return t.render(kindBouncing, d.To, d)
}

// refusable gives e the RFC 8058 one-click refusal headers of link, when
// there is one.
func refusable(e *core.Email, link string) {
	if link == "" {
		return
	}
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Headers["List-Unsubscribe"] = "<" + link + ">"
	e.Headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
}

// Delivery is the message itself, to its recipient. Replies go to the author;
// the Message-ID and Date of d pass through so every retry sends the same
// email; the headers offer RFC 8058 one-click refusal.
func (t *Templates) Delivery(d core.DeliveryEmail) (*core.Email, error) {
	e, err := t.renderView(kindDelivery, d.To, deliveryView{
		App: t.app, BaseURL: t.baseURL, Salutation: core.Salutation(d.To.Name, d.Body), Author: displayName(d.Author),
		AuthorAddress: d.Author.Address, AuthorFull: formatAddress(d.Author), Body: d.Body,
		BodyHTML: htmlLines(d.Body), Written: formatWhen(d.WrittenAt, d.Location),
		UnsubscribeLink: d.UnsubscribeLink, Sealed: d.Sealed, Hint: d.Hint, OpenLink: d.OpenLink,
		OpenFor: cmp.Or(d.OpenFor, core.OpenValidityWords(0)), Files: d.Files, FilesFor: d.FilesFor,
	}, len(d.Body)+len(d.Files)*200)
	if err != nil {
		return nil, err
	}
	author := d.Author
	e.ReplyTo = &author
	e.MessageID = d.MessageID
	e.Date = d.Date
	e.Attachments = d.Attachments
	if d.UnsubscribeLink != "" {
		e.Headers = map[string]string{
			"List-Unsubscribe":      "<" + d.UnsubscribeLink + ">",
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		}
	}
	return e, nil
}

// DeliveryFailed tells the author that a message could not be delivered.
func (t *Templates) DeliveryFailed(d core.DeliveryFailedEmail) (*core.Email, error) {
	return t.render(kindDeliveryFailed, d.To, d)
}

// Contact forwards a contact form submission to the operator; replies go to
// the submitter.
func (t *Templates) Contact(d core.ContactEmail) (*core.Email, error) {
	e, err := t.render(kindContact, d.To, d)
	if err != nil {
		return nil, err
	}
	e.ReplyTo = &core.Address{Name: d.Name, Address: d.Email}
	return e, nil
}

// OperatorSummary tells the operator what failed for good in the last day.
func (t *Templates) OperatorSummary(d core.OperatorSummaryEmail) (*core.Email, error) {
	return t.render(kindSummary, d.To, d)
}

func formatWhen(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(dateLayout)
}

func displayName(a core.Address) string {
	if a.Name != "" {
		return a.Name
	}
	return a.Address
}

func formatAddress(a core.Address) string {
	if a.Name == "" {
		return a.Address
	}
	return a.Name + " <" + a.Address + ">"
}

// htmlLines escapes s and keeps its line breaks as <br>, which every mail
// client honours (white-space:pre-wrap is not).
func htmlLines(s string) htmltemplate.HTML {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = htmltemplate.HTMLEscapeString(l)
	}
	return htmltemplate.HTML(strings.Join(lines, "<br>"))
}

// brandHTML is the wordmark as the web app draws it (web/ui/src/components/logo.tsx): the
// name's first four letters, then the rest in the brand's accent colour.
func brandHTML(app string) htmltemplate.HTML {
	r := []rune(app)
	if len(r) <= 4 {
		return htmltemplate.HTML(htmltemplate.HTMLEscapeString(app))
	}
	return htmltemplate.HTML(htmltemplate.HTMLEscapeString(string(r[:4])) +
		`<span class="brand-accent" style="color:#524ed2;">` + htmltemplate.HTMLEscapeString(string(r[4:])) + `</span>`)
}

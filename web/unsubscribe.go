package web

import (
	"github.com/sendlater/sendlater/core"
	"html/template"
	"net/http"
)

// The one-click refusals (RFC 8058): a delivery email's and every email's
// to a second reminder address (core/delivery_reminder_address.go), of every further
// email to its address, and a test email's, of further test emails to its
// address (core.RefusalKind, from the token). The link,
// <base_url>/unsubscribe/<token>, is both the List-Unsubscribe target, which
// mail clients POST to, and the footer link a person opens: GET shows a page
// with a confirm button (scanners open links too), POST records the refusal.

var refusalPage = template.Must(template.New("refusal").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.App}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}
button{font:inherit;padding:.6rem 1.2rem;cursor:pointer}</style></head>
<body><h1>{{.App}}</h1>
{{if .Invalid}}<p>This link is not valid. Please use the link of the email you received.</p>
{{else if .Tests}}{{if .Done}}<p>Done. No further test emails will be sent to this address through {{.App}}. Messages written for you are still delivered.</p>
{{else}}<p>This address received a test email: an author of {{.App}} sent themselves what their message will look like. Do you want to stop test emails to this address? Messages written for you are still delivered.</p>
<form method="post"><button type="submit">Stop test emails</button></form>{{end}}
{{else if .Done}}<p>Done. No further messages, reminders or requests will be sent to you through {{.App}}.</p>
{{else}}<p>Someone used {{.App}} to send you a message written for the future, or to copy their reminders to you. Do you want to refuse every further email sent to you through {{.App}}?</p>
<form method="post"><button type="submit">Refuse further messages</button></form>{{end}}
</body></html>`))

type refusalPageData struct {
	App           string
	Done, Invalid bool
	Tests         bool // the refusal of test emails, not of every message
}

func (s *Server) writeRefusalPage(w http.ResponseWriter, status int, d refusalPageData) {
	d.App = s.AppName
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	refusalPage.Execute(w, d)
}

func (s *Server) handleRefusalPage(w http.ResponseWriter, r *http.Request) {
	kind, err := s.Refusals.Check(r.PathValue("token"))
	if err != nil {
		s.writeRefusalPage(w, http.StatusBadRequest, refusalPageData{Invalid: true})
		return
	}
	s.writeRefusalPage(w, http.StatusOK, refusalPageData{Tests: kind == core.RefuseTestEmails})
}

func (s *Server) handleRefuse(w http.ResponseWriter, r *http.Request) {
	kind, err := s.Refusals.Refuse(r.Context(), r.PathValue("token"))
	if core.ErrorCode(err) == core.EInvalid {
		s.writeRefusalPage(w, http.StatusBadRequest, refusalPageData{Invalid: true})
		return
	}
	if err != nil {
		logger(r).Error("recording a refusal", "err", err)
		http.Error(w, "Internal error. Please try again later.", http.StatusInternalServerError)
		return
	}
	tests := kind == core.RefuseTestEmails
	if tests {
		logger(r).Info("an address refused further test emails")
	} else {
		logger(r).Info("a recipient refused further messages")
	}
	s.writeRefusalPage(w, http.StatusOK, refusalPageData{Done: true, Tests: tests})
}

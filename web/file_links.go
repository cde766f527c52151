package web

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/sendlater/sendlater/core"
)

// The recipients' file links, GET (and HEAD) /files/{token}: no sign-in,
// the token only (core.FileLinkService), limited per token and per client.
// A link that downloads sends the bytes as the author's download does
// (serveFile: ranges, the safety headers, never gzipped). A refusal is the
// error envelope, or, for a browser (Accept: text/html), a small page
// that says the same; a test email's link downloads only with the
// author's bearer token, so a click in the test email shows the page that
// says so.

var fileLinkPage = template.Must(template.New("file-link").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta name="color-scheme" content="light dark">
<title>{{.Title}} · {{.App}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color-scheme:light dark;background:#fcfcfd;color:#1b1f27}
h1{font-size:1.5rem;margin:.5rem 0 1rem}a,.app{color:#4f4bc9}.app{font-weight:600;margin:0}
@media (prefers-color-scheme:dark){body{background:#111318;color:#e6e8ee}a,.app{color:#a5a3ff}}</style></head>
<body><p class="app">{{.App}}</p><h1>{{.Title}}</h1>
<p>{{.Message}}</p>
{{if .SignIn}}<p><a href="{{.SignIn}}">Open your messages in {{.App}}</a></p>{{end}}
</body></html>`))

type fileLinkPageData struct {
	App, Title, Message, SignIn string
}

// fileLinkTitles are the pages' headings by the refusal's code.
var fileLinkTitles = map[string]string{
	core.EAttachmentNotFound: "File not found",
	core.EFileLinkExpired:    "This link has expired",
	core.EFileTestLink:       "A test email's link",
	core.ETooManyRequests:    "Please try again later",
}

// handleFileLink serves a recipient's file link.
func (s *Server) handleFileLink(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex")
	ctx := r.Context()
	// A test link downloads for its author: a bearer token of theirs.
	if token := bearerToken(r); token != "" {
		if id, err := s.Identities.Authenticate(ctx, token); err == nil {
			r = withIdentity(r, id)
			ctx = r.Context()
		}
	}
	// A download is counted once: not a HEAD, nor a range after its start.
	rng := r.Header.Get("Range")
	count := r.Method == http.MethodGet && (rng == "" || strings.HasPrefix(strings.ReplaceAll(rng, " ", ""), "bytes=0-"))
	a, f, err := s.FileLinks.Download(ctx, r.PathValue("token"), clientIP(r), count)
	if err != nil {
		s.refuseFileLink(w, r, err)
		return
	}
	defer f.Close()
	serveFile(w, r, a, f)
}

// refuseFileLink answers a refusal: the envelope, or a page for a browser.
func (s *Server) refuseFileLink(w http.ResponseWriter, r *http.Request, err error) {
	code := core.ErrorCode(err)
	title, known := fileLinkTitles[code]
	if !known || !strings.Contains(r.Header.Get("Accept"), "text/html") {
		writeError(w, r, err)
		return
	}
	e, _ := core.AsError(err)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds()+0.999)))
	}
	d := fileLinkPageData{App: s.AppName, Title: title, Message: e.Message}
	if code == core.EFileTestLink {
		d.SignIn = "/dashboard"
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(HTTPStatus(code))
	fileLinkPage.Execute(w, d)
}

package web

import (
	"net/http"
	"strings"
)

// sealedOpenJSON is what GET /api/open/{token} answers: a sealed message's
// envelope, for the open page to open in the browser (docs/sealed.md).
type sealedOpenJSON struct {
	MessageID string `json:"messageId"`
	Envelope  string `json:"envelope"`
	Hint      string `json:"hint,omitempty"`
	Author    string `json:"author"`
	To        string `json:"to"`
	WrittenAt int64  `json:"writtenAt"`
	// Files are the message's complete files, sealed with the same
	// passphrase: never null, empty when none.
	Files []sealedOpenFileJSON `json:"files"`
}

// sealedOpenFileJSON is a file of the open reply: size is the sealed size
// (the page shows size - header - 16 a chunk), url the recipient's own
// /files/{file}.{mac} link as a path on this site.
type sealedOpenFileJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Size int64  `json:"size"`
	URL  string `json:"url"`
}

// handleOpenSealed serves a recipient's open link: no sign-in, the token
// only, limited per token and per client (core.SealedOpenService).
func (s *Server) handleOpenSealed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	v, err := s.Opens.Open(r.Context(), r.PathValue("token"), clientIP(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	files := make([]sealedOpenFileJSON, len(v.Files))
	for i, f := range v.Files {
		files[i] = sealedOpenFileJSON{ID: f.ID, Name: f.Name, Size: f.Size, URL: f.URL}
	}
	writeData(w, http.StatusOK, sealedOpenJSON{MessageID: v.MessageID, Envelope: v.Envelope, Hint: v.Hint,
		Author: v.Author, To: v.To, WrittenAt: millis(v.WrittenAt), Files: files})
}

// loggedPath is path as the access log writes it: a sealed message's open
// token (which fetches its envelope) and a file link's token replaced by
// "…".
func loggedPath(path string) string {
	for _, p := range []string{"/api/open/", "/open/", "/files/"} {
		if strings.HasPrefix(path, p) && len(path) > len(p) {
			return p + "…"
		}
	}
	return path
}

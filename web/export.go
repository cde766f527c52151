package web

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// exportWriteTime is how long one write of the zip export may wait for
// the client: each write moves the deadline on, so a large export takes as
// long as it needs while a client that stops reading is let go.
const exportWriteTime = 2 * time.Minute

// exportFormat is the form GET /api/me/export is asked for: "zip"
// (?format=zip, or Accept naming application/zip before JSON) or "json".
func exportFormat(r *http.Request) (string, error) {
	switch f := r.URL.Query().Get("format"); f {
	case "zip", "json":
		return f, nil
	case "":
	default:
		sentence := `The format is "json" or "zip".`
		return "", &core.Error{Code: core.EValidation, Message: sentence, Fields: map[string]string{"format": sentence}}
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		t, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
		switch t {
		case "application/zip":
			return "zip", nil
		case "application/json":
			return "json", nil
		}
	}
	return "json", nil
}

// handleExport is GET /api/me/export: everything stored about the user,
// as JSON (the files' records with it), or as a zip of that JSON
// (export.json) and the files' bytes (files/MESSAGE/NAME), streamed.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	format, err := exportFormat(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	x, err := s.Identities.Export(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := NewAccountExportJSON(x)
	var files []*core.Attachment
	if s.Attachments != nil {
		if files, err = s.Attachments.AccountFiles(r.Context()); err != nil {
			writeError(w, r, err)
			return
		}
	}
	if format == "json" {
		out.Files = exportedFiles(files, nil)
		writeData(w, http.StatusOK, out)
		return
	}
	// One zip export of a user at a time: each reads every file once.
	uid := core.IdentityFrom(r.Context()).UserID
	if _, busy := s.exporting.LoadOrStore(uid, struct{}{}); busy {
		writeError(w, r, core.Errorf(core.ETooManyRequests, "An export of your account is being made; try again once it is done."))
		return
	}
	defer s.exporting.Delete(uid)
	paths := zipPaths(files)
	out.Files = exportedFiles(files, paths)
	writeExportZip(w, r, s.Attachments, x.ExportedAt, out, files, paths)
}

// exportedFiles are the files' records, each with its path in the zip
// (paths nil: the JSON form, none).
func exportedFiles(files []*core.Attachment, paths map[string]string) []ExportedFileJSON {
	out := make([]ExportedFileJSON, len(files))
	for i, a := range files {
		out[i] = ExportedFileJSON{FileJSON: newFileJSON(a), Path: paths[a.ID]}
	}
	return out
}

// zipPaths are the complete files' paths in the zip: files/MESSAGE/NAME,
// a name a message has twice made unique ("a (2).pdf").
func zipPaths(files []*core.Attachment) map[string]string {
	paths := map[string]string{}
	taken := map[string]bool{}
	for _, a := range files {
		if a.State != core.AttachmentComplete {
			continue
		}
		name := a.Name
		if name == "" || name == "." || name == ".." {
			name = "file"
		}
		ext := path.Ext(name)
		stem := strings.TrimSuffix(name, ext)
		p := "files/" + a.MessageID + "/" + name
		for n := 2; taken[strings.ToLower(p)]; n++ {
			p = fmt.Sprintf("files/%s/%s (%d)%s", a.MessageID, stem, n, ext)
		}
		taken[strings.ToLower(p)] = true
		paths[a.ID] = p
	}
	return paths
}

// writeExportZip streams the zip: export.json, then each complete file
// read part after part (never a whole file in memory). A failure once the
// reply has begun aborts the connection, so the client never takes a cut
// archive for a whole one.
func writeExportZip(w http.ResponseWriter, r *http.Request, files core.Attachments, at time.Time,
	out *AccountExportJSON, list []*core.Attachment, paths map[string]string) {
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", contentDisposition("sendlater-export-"+at.UTC().Format("2006-01-02")+".zip"))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	zw := zip.NewWriter(&deadlineWriter{w: w, rc: http.NewResponseController(w)})
	fail := func(err error) {
		logger(r).Warn("the zip export stopped", "err", err)
		panic(http.ErrAbortHandler)
	}
	j, err := zw.CreateHeader(&zip.FileHeader{Name: "export.json", Method: zip.Deflate, Modified: at})
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(j)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
	for _, a := range list {
		p, ok := paths[a.ID]
		if !ok {
			continue
		}
		if err := copyFileInto(r, zw, files, a, p); err != nil {
			fail(err)
		}
	}
	if err := zw.Close(); err != nil {
		fail(err)
	}
}

// copyFileInto writes file a at p: stored as is when its bytes are
// already compressed or sealed, deflated when text.
func copyFileInto(r *http.Request, zw *zip.Writer, files core.Attachments, a *core.Attachment, p string) error {
	_, f, err := files.OpenAccountFile(r.Context(), a.ID)
	if err != nil {
		return err
	}
	defer f.Close()
	method := zip.Store
	if !a.ClientSealed && (strings.HasPrefix(a.Type, "text/") || a.Type == "application/json") {
		method = zip.Deflate
	}
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: p, Method: method, Modified: a.CompletedAt})
	if err != nil {
		return err
	}
	n, err := io.Copy(fw, f)
	if err == nil && n != a.Size {
		err = fmt.Errorf("file %s: read %d bytes of %d", a.ID, n, a.Size)
	}
	return err
}

// deadlineWriter moves the reply's write deadline on before each write.
type deadlineWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(exportWriteTime))
	return d.w.Write(p)
}

// FilesUsageJSON is GET /api/me/files: the account's files against its
// plan's limits (the quota in settings). Read from the store at each
// request, never kept: an upload changes it.
type FilesUsageJSON struct {
	Plan core.PlanID `json:"plan"`
	// Files is how many files the account has; Used the bytes they take
	// (an upload under way reserves its whole size).
	Files int   `json:"files"`
	Used  int64 `json:"used"`
	// Limit is the account's bytes, PerMessage one message's, MaxFiles
	// one message's files: Limit 0 means the plan has no files.
	Limit      int64 `json:"limit"`
	PerMessage int64 `json:"perMessage"`
	MaxFiles   int   `json:"maxFiles"`
}

func (s *Server) handleFilesUsage(w http.ResponseWriter, r *http.Request) {
	if s.Attachments == nil {
		writeError(w, r, core.Errorf(core.ENotFound, "Files are not offered on this server."))
		return
	}
	u, err := s.Attachments.Usage(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeData(w, http.StatusOK, FilesUsageJSON{Plan: u.Plan, Files: u.Files, Used: u.Used, Limit: u.Limits.PerAccount,
		PerMessage: u.Limits.PerMessage, MaxFiles: u.MaxFiles})
}

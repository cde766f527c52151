package web

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// FileJSON is one file of a message (GET /api/messages/{id}/files...).
type FileJSON struct {
	ID         string `json:"id"`
	MessageID  string `json:"messageId"`
	Name       string `json:"name"`
	Type       string `json:"type"` // sniffed; "" until the first part arrives
	Size       int64  `json:"size"`
	Executable bool   `json:"executable"`
	// ClientSealed: the bytes are encrypted by the author's client (a
	// sealed message's file).
	ClientSealed bool   `json:"clientSealed"`
	State        string `json:"state"`  // uploading, complete
	Offset       int64  `json:"offset"` // bytes stored: where the next part starts
	PartSize     int64  `json:"partSize"`
	CreatedAt    int64  `json:"createdAt"`
	CompletedAt  int64  `json:"completedAt,omitempty"`
	// Downloads are the recipients' downloads from their links, in the
	// list of a delivered message's files.
	Downloads []FileDownloadJSON `json:"downloads,omitempty"`
}

// FileDownloadJSON is one recipient's downloads of a file.
type FileDownloadJSON struct {
	Recipient string `json:"recipient"` // the address
	Count     int    `json:"count"`
	FirstAt   int64  `json:"firstAt"`
	LastAt    int64  `json:"lastAt"`
}

func newFileJSON(a *core.Attachment) *FileJSON {
	f := &FileJSON{ID: a.ID, MessageID: a.MessageID, Name: a.Name, Type: a.Type, Size: a.Size, Executable: a.Executable,
		ClientSealed: a.ClientSealed, State: string(a.State), Offset: a.Offset(), PartSize: a.PartSize,
		CreatedAt: millis(a.CreatedAt)}
	if !a.CompletedAt.IsZero() {
		f.CompletedAt = millis(a.CompletedAt)
	}
	for _, d := range a.Downloads {
		f.Downloads = append(f.Downloads, FileDownloadJSON{Recipient: d.Address, Count: d.Count,
			FirstAt: millis(d.FirstAt), LastAt: millis(d.LastAt)})
	}
	return f
}

// createFileRequest is POST /api/messages/{id}/files's body.
type createFileRequest struct {
	Name string `json:"name"`
	Size *int64 `json:"size"`
}

// The upload protocol's headers (docs/api.md, "Files").
const (
	headerUploadOffset   = "Upload-Offset"
	headerUploadLength   = "Upload-Length"
	headerUploadPartSize = "Upload-Part-Size"
	uploadContentType    = "application/offset+octet-stream"
	// maxPartBody bounds a part's request whatever the part size: a part
	// is read to its length and one byte more, never further.
	maxPartBody = 64 << 20
	// partReadTime is how long one part's request may take to arrive: a
	// 1 MiB part at 14 KB/s, past the server's ReadTimeout.
	partReadTime = 10 * time.Minute
)

// filesRoutes registers the author's files of their messages: the public
// server's for the author, the admin socket's for an operator acting for
// them (audited there).
func filesRoutes(mux *http.ServeMux, files core.Attachments, signedIn guard) {
	base := "/api/messages/{id}/files"
	mux.HandleFunc("GET "+base, signedIn(func(w http.ResponseWriter, r *http.Request) {
		as, err := files.List(r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, r, err)
			return
		}
		out := make([]*FileJSON, len(as))
		for i, a := range as {
			out[i] = newFileJSON(a)
		}
		writeData(w, http.StatusOK, out)
	}))
	mux.HandleFunc("POST "+base, signedIn(func(w http.ResponseWriter, r *http.Request) {
		var req createFileRequest
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		if req.Size == nil {
			writeError(w, r, core.ValidationError(map[string]string{"size": "Give the file's size in bytes."}))
			return
		}
		a, err := files.Create(r.Context(), r.PathValue("id"), req.Name, *req.Size)
		if err != nil {
			writeError(w, r, err)
			return
		}
		uploadHeaders(w, a)
		w.Header().Set("Location", fileURL(a))
		writeData(w, http.StatusCreated, newFileJSON(a))
	}))
	// GET (and HEAD) tell where an upload stands, in the body and in the
	// protocol's headers.
	mux.HandleFunc("GET "+base+"/{file}", signedIn(func(w http.ResponseWriter, r *http.Request) {
		a, err := files.Get(r.Context(), r.PathValue("id"), r.PathValue("file"))
		if err != nil {
			writeError(w, r, err)
			return
		}
		uploadHeaders(w, a)
		writeData(w, http.StatusOK, newFileJSON(a))
	}))
	upload := signedIn(func(w http.ResponseWriter, r *http.Request) {
		offset, err := strconv.ParseInt(r.Header.Get(headerUploadOffset), 10, 64)
		if err != nil || offset < 0 {
			sentence := "Send the part's offset in the Upload-Offset header: a whole number of bytes."
			writeError(w, r, &core.Error{Code: core.EValidation, Message: sentence, Fields: map[string]string{"offset": sentence}})
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != uploadContentType && ct != "application/octet-stream" {
			writeError(w, r, core.Errorf(core.EInvalid, "A part's body is its bytes (Content-Type: %s).", uploadContentType))
			return
		}
		if r.ContentLength > maxPartBody {
			writeError(w, r, core.Errorf(core.ETooLarge, "A request carries one part of the file."))
			return
		}
		// A part may take longer to arrive than the server's read timeout.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(partReadTime))
		body := http.MaxBytesReader(w, r.Body, maxPartBody)
		a, err := files.Upload(r.Context(), r.PathValue("id"), r.PathValue("file"), offset, body)
		if a != nil {
			uploadHeaders(w, a)
		}
		if err != nil {
			if core.ErrorCode(err) == core.ETooLarge || core.ErrorCode(err) == core.EInvalid {
				// The rest of the body is not read: the connection goes.
				w.Header().Set("Connection", "close")
			}
			writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("PATCH "+base+"/{file}", upload)
	mux.HandleFunc("PUT "+base+"/{file}", upload)
	mux.HandleFunc("GET "+base+"/{file}/content", signedIn(func(w http.ResponseWriter, r *http.Request) {
		a, f, err := files.Open(r.Context(), r.PathValue("id"), r.PathValue("file"))
		if err != nil {
			writeError(w, r, err)
			return
		}
		defer f.Close()
		serveFile(w, r, a, f)
	}))
	mux.HandleFunc("DELETE "+base+"/{file}", signedIn(func(w http.ResponseWriter, r *http.Request) {
		if err := files.Delete(r.Context(), r.PathValue("id"), r.PathValue("file")); err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, nil)
	}))
}

func fileURL(a *core.Attachment) string {
	return "/api/messages/" + url.PathEscape(a.MessageID) + "/files/" + url.PathEscape(a.ID)
}

func uploadHeaders(w http.ResponseWriter, a *core.Attachment) {
	h := w.Header()
	h.Set(headerUploadOffset, strconv.FormatInt(a.Offset(), 10))
	h.Set(headerUploadLength, strconv.FormatInt(a.Size, 10))
	h.Set(headerUploadPartSize, strconv.FormatInt(a.PartSize, 10))
	h.Set("Cache-Control", "no-store")
}

// serveFile sends a file's bytes as a download: ranges (http.ServeContent),
// never shown inline, its sniffed type only (an executable's and a sealed
// message's are application/octet-stream), with nosniff and a sandbox so a
// browser that opens it anyway runs nothing of it.
func serveFile(w http.ResponseWriter, r *http.Request, a *core.Attachment, f io.ReadSeeker) {
	typ := a.Type
	if typ == "" || a.Executable || a.ClientSealed {
		typ = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", typ)
	h.Set("Content-Disposition", contentDisposition(a.Name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-store")
	http.ServeContent(w, r, "", a.CompletedAt, f)
}

// contentDisposition is attachment with the name: an ASCII fallback and the
// UTF-8 name (RFC 6266, RFC 5987).
func contentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' || r == ';' {
			return '_'
		}
		return r
	}, name)
	return fmt.Sprintf(`attachment; filename="%s"; filename*=UTF-8''%s`, ascii, url.PathEscape(name))
}

package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// compressed is next behind withRequest with gzip on, as the server runs it.
func compressed(next http.Handler) http.Handler {
	return withRequest(slog.New(slog.DiscardHandler), nil, nil, false, true, next)
}

func replyWith(contentType, body string, encoding string) http.Handler {
	return compressed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		if encoding != "" {
			w.Header().Set("Content-Encoding", encoding)
		}
		w.WriteHeader(http.StatusCreated)
		// In pieces, as the JSON writers do.
		for i := 0; i < len(body); i += 100 {
			w.Write([]byte(body[i:min(i+100, len(body))]))
		}
	}))
}

func get(h http.Handler, acceptEncoding string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", "/", nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestLargeJSONRepliesAreGzipped(t *testing.T) {
	body := `{"status":"success","data":"` + strings.Repeat("a letter for later ", 200) + `"}`
	h := replyWith("application/json", body, "")

	rec := get(h, "br, gzip;q=0.8")
	if rec.Code != http.StatusCreated || rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
	if rec.Body.Len() >= len(body)/4 || gunzip(t, rec.Body.Bytes()) != body {
		t.Fatalf("gzipped %d of %d bytes", rec.Body.Len(), len(body))
	}
	// A second reply reuses a pooled writer: it must start clean.
	if again := get(h, "gzip"); gunzip(t, again.Body.Bytes()) != body {
		t.Fatal("a pooled writer leaked state")
	}

	rec = get(h, "gzip;q=0, identity")
	if rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != body || rec.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("a client refusing gzip: %v", rec.Header())
	}
}

func TestSmallOrEncodedRepliesPassAsTheyAre(t *testing.T) {
	small := `{"status":"success","data":null}`
	if rec := get(replyWith("application/json", small, ""), "gzip"); rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != small || rec.Code != http.StatusCreated {
		t.Fatalf("small reply: %d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	big := strings.Repeat("x", 5000)
	if rec := get(replyWith("text/javascript", big, "br"), "gzip, br"); rec.Header().Get("Content-Encoding") != "br" || rec.Body.String() != big {
		t.Fatalf("already encoded: %v", rec.Header())
	}
	if rec := get(replyWith("image/png", big, ""), "gzip"); rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Vary") != "" {
		t.Fatalf("not compressible: %v", rec.Header())
	}
}

// TestAFlushSendsWhatIsHeld: a message stream's first event goes out at once.
func TestAFlushSendsWhatIsHeld(t *testing.T) {
	srv := httptest.NewServer(compressed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"first":true}`))
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	n, err := resp.Body.Read(buf)
	if err != nil || string(buf[:n]) != `{"first":true}` {
		t.Fatalf("%q %v", buf[:n], err)
	}
}

// accessLine runs one request to next behind withRequest (gzip on) and
// returns the reply and the access line's status and bytes.
func accessLine(t *testing.T, method, acceptEncoding string, next http.HandlerFunc) (rec *httptest.ResponseRecorder, status, bytes int) {
	t.Helper()
	var logs strings.Builder
	h := withRequest(slog.New(slog.NewJSONHandler(&logs, nil)), nil, nil, false, true, next)
	req := httptest.NewRequest(method, "/", nil)
	req.Header.Set("Accept-Encoding", acceptEncoding)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	for line := range strings.Lines(logs.String()) {
		var l struct {
			Msg           string
			Status, Bytes int
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Msg == "request" {
			return rec, l.Status, l.Bytes
		}
	}
	t.Fatalf("no access line in %s", logs.String())
	return
}

// The access line shows the status and the bytes that went out: gzipped
// bytes for a gzipped reply, the error reply of a panic before anything was
// written, and what was written before a panic.
func TestAccessLineShowsWhatWasSent(t *testing.T) {
	body := `{"status":"success","data":"` + strings.Repeat("a letter for later ", 200) + `"}`
	write := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		for i := 0; i < len(body); i += 100 {
			w.Write([]byte(body[i:min(i+100, len(body))]))
		}
	}

	rec, status, n := accessLine(t, "GET", "gzip", func(w http.ResponseWriter, r *http.Request) { write(w, http.StatusCreated, body) })
	if rec.Header().Get("Content-Encoding") != "gzip" || status != http.StatusCreated || n != rec.Body.Len() || n >= len(body)/4 {
		t.Fatalf("gzipped: %v, logged %d %d bytes, sent %d of %d", rec.Header(), status, n, rec.Body.Len(), len(body))
	}
	rec, status, n = accessLine(t, "HEAD", "gzip", func(w http.ResponseWriter, r *http.Request) { write(w, http.StatusOK, body) })
	if rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Vary") != "" || status != http.StatusOK || n != len(body) {
		t.Fatalf("HEAD: %v, logged %d %d bytes", rec.Header(), status, n)
	}
	rec, status, n = accessLine(t, "GET", "gzip", func(w http.ResponseWriter, r *http.Request) { write(w, http.StatusAccepted, `{}`) })
	if rec.Code != http.StatusAccepted || rec.Body.String() != `{}` || status != http.StatusAccepted || n != 2 {
		t.Fatalf("small: %d %q, logged %d %d bytes", rec.Code, rec.Body, status, n)
	}

	rec, status, n = accessLine(t, "GET", "gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		panic("boom")
	})
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "Internal error.") ||
		rec.Header().Get("Vary") != "" || status != http.StatusInternalServerError || n != rec.Body.Len() {
		t.Fatalf("panic: %d %v %q, logged %d %d bytes", rec.Code, rec.Header(), rec.Body, status, n)
	}
	rec, status, n = accessLine(t, "GET", "gzip", func(w http.ResponseWriter, r *http.Request) {
		write(w, http.StatusCreated, `{"half":`)
		panic("boom")
	})
	if rec.Code != http.StatusCreated || rec.Body.String() != `{"half":` || status != http.StatusCreated || n != rec.Body.Len() {
		t.Fatalf("panic after a held write: %d %q, logged %d %d bytes", rec.Code, rec.Body, status, n)
	}
	rec, status, n = accessLine(t, "GET", "gzip", func(w http.ResponseWriter, r *http.Request) {
		write(w, http.StatusCreated, body)
		panic("boom")
	})
	if rec.Code != http.StatusCreated || gunzip(t, rec.Body.Bytes()) != body || status != http.StatusCreated || n != rec.Body.Len() {
		t.Fatalf("panic while gzipping: %d %v, logged %d %d bytes of %d", rec.Code, rec.Header(), status, n, rec.Body.Len())
	}
}

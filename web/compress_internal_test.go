package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func replyWith(contentType, body string, encoding string) http.Handler {
	return compressReplies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	srv := httptest.NewServer(compressReplies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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

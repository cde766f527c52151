package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// compressMinSize is the smallest reply worth gzipping: below about one
// packet the saving does not pay for the work and the header.
const compressMinSize = 1400

// compressLevel trades size for speed on replies made per request (the
// build compresses the static files at the highest levels once).
const compressLevel = gzip.BestSpeed

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, compressLevel) // a valid level cannot fail
	return w
}}

// compressible are the content types of dynamic replies worth gzipping:
// the API's JSON, the pages' HTML, the sitemap and robots.txt.
func compressible(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	switch strings.TrimSpace(t) {
	case "application/json", "text/html", "application/xml", "text/plain":
		return true
	}
	return false
}

// replyWriter is the writer every reply goes through (withRequest): it
// remembers the status and size of what it sent, for the access log, and,
// when gzip is on, gzips replies of a compressible type from
// compressMinSize bytes on, for clients that accept gzip. It holds back the
// first bytes until it knows the reply is that large; a flush (a message
// stream) sends what it holds as it is. Replies that already carry a
// Content-Encoding (the build's brotli and gzip copies) pass untouched. The
// size is what went out, gzipped or not.
type replyWriter struct {
	sent    statusRecorder // the connection's writer
	accepts bool           // the client takes gzip
	status  int            // the handler's status, held back until decided
	held    []byte
	decided bool // the header went out (or can go): nothing more is held back
	gz      *gzip.Writer
}

// begin readies c for the reply to r on w, gzipped when compress is set
// and r is not a HEAD.
func (c *replyWriter) begin(w http.ResponseWriter, r *http.Request, compress bool) {
	c.sent.ResponseWriter = w
	if !compress || r.Method == http.MethodHead {
		c.decided = true // nothing to decide: every write passes
		return
	}
	c.accepts = acceptsEncoding(headerValue(r.Header, "Accept-Encoding"), "gzip")
}

func (c *replyWriter) Header() http.Header { return c.sent.Header() }

// takesGzip reports whether a reply not yet begun may be sent gzipped: gzip
// is on, the client takes it and the request is not a HEAD.
func (c *replyWriter) takesGzip() bool { return c.accepts && !c.decided && c.status == 0 }

func (c *replyWriter) WriteHeader(status int) {
	if c.decided || c.status != 0 {
		if c.decided {
			c.sent.WriteHeader(status)
		}
		return
	}
	c.status = status
	// Replies without a body, or with one already encoded, to a client that
	// takes no gzip, or known to be too small, need no holding back; nor
	// do files (a download, a range of one), sent as their bytes are.
	h := c.Header()
	if !c.accepts || status < 200 || status == http.StatusNoContent || status == http.StatusNotModified ||
		status == http.StatusPartialContent || headerValue(h, "Content-Disposition") != "" ||
		headerValue(h, "Content-Encoding") != "" || !compressible(headerValue(h, "Content-Type")) || knownSmall(h) {
		c.decide(false)
	}
}

// headerValue is h.Get(key) for a key already in canonical form, without
// Get's canonicalizing of the key on every call (a few percent of a quick
// read's CPU, several lookups a request). net/http gives a request's
// header its keys in canonical form; Get looks up the same key.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// knownSmall reports whether the reply's Content-Length says it is below
// compressMinSize.
func knownSmall(h http.Header) bool {
	n, err := strconv.Atoi(headerValue(h, "Content-Length"))
	return err == nil && n < compressMinSize
}

// varyEncoding is the Vary of compressible replies: shared, never appended
// to in place (Header.Add copies a slice of capacity 1).
var varyEncoding = []string{"Accept-Encoding"}

func (c *replyWriter) Write(p []byte) (int, error) {
	if !c.decided && c.status == 0 {
		c.WriteHeader(http.StatusOK) // which may decide
	}
	if !c.decided {
		if len(c.held)+len(p) < compressMinSize {
			c.held = append(c.held, p...)
			return len(p), nil
		}
		c.decide(c.accepts)
	}
	if c.gz != nil {
		return c.gz.Write(p)
	}
	return c.sent.Write(p)
}

// decide sends the header, gzipped or not, and what was held back.
func (c *replyWriter) decide(compress bool) {
	c.decided = true
	h := c.Header()
	if compressible(headerValue(h, "Content-Type")) && headerValue(h, "Content-Encoding") == "" {
		if h["Vary"] == nil {
			h["Vary"] = varyEncoding
		} else {
			h.Add("Vary", "Accept-Encoding")
		}
	}
	if compress {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		c.gz = gzipWriters.Get().(*gzip.Writer)
		c.gz.Reset(&c.sent)
	}
	if c.status != 0 {
		c.sent.WriteHeader(c.status)
	}
	held := c.held
	c.held = nil
	if len(held) == 0 {
		return
	}
	if c.gz != nil {
		c.gz.Write(held)
	} else {
		c.sent.Write(held)
	}
}

// Flush sends what is held back as it is and flushes (Server-Sent Events).
func (c *replyWriter) Flush() {
	if !c.decided {
		c.decide(false)
	}
	if c.gz != nil {
		c.gz.Flush()
	}
	http.NewResponseController(c.sent.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *replyWriter) Unwrap() http.ResponseWriter { return c.sent.ResponseWriter }

// close sends what is still held back and ends the gzip stream.
func (c *replyWriter) close() {
	if !c.decided && c.status != 0 {
		c.decide(false)
	}
	if c.gz != nil {
		c.gz.Close()
		c.gz.Reset(io.Discard)
		gzipWriters.Put(c.gz)
		c.gz = nil
	}
}

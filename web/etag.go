package web

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// The reads of the list and of a message carry an ETag, the hash of the
// reply's bytes, and answer 304 Not Modified (no body) to an If-None-Match
// holding it. The tag is computed from the reply just built, so it is never
// stale: whatever changed the list or the message (the author in another
// tab, the scheduler, an operator's command, another replica) changes the
// bytes and with them the tag. It is weak (W/) because a compressed reply
// carries the tag of the uncompressed bytes, and the same on every replica.
// The replies stay Cache-Control: no-store (a browser keeps no copy of
// private data); a client that keeps the last reply itself sends its tag.

// etagOf is the weak ETag of a reply's bytes: 128 bits of SHA-256.
func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `W/"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// notModifiedH sets the ETag header to tagH (one tag, shared, never
// changed) and, when r's If-None-Match holds the tag (or is *), answers 304
// and reports true.
func notModifiedH(w http.ResponseWriter, r *http.Request, tagH []string) bool {
	w.Header()["Etag"] = tagH
	inm := headerValue(r.Header, "If-None-Match")
	if inm == "" || !etagListed(inm, tagH[0]) {
		return false
	}
	w.WriteHeader(http.StatusNotModified)
	return true
}

// etagListed reports whether the If-None-Match list holds tag, compared
// weakly (RFC 9110 13.1.2: W/ ignored on both sides).
func etagListed(list, tag string) bool {
	opaque := strings.TrimPrefix(tag, "W/")
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "*" || strings.TrimPrefix(item, "W/") == opaque {
			return true
		}
	}
	return false
}

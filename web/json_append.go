package web

import (
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/sendlater/sendlater/core"
)

// Messages are the API's hottest replies (the dashboard list and its
// stream): they are written with append functions that produce exactly what
// encoding/json produces for MessageJSON (json_append_internal_test.go checks it),
// without reflection.

// appendMessageJSON appends the JSON of m as NewMessageJSON(m) marshals.
func appendMessageJSON(b []byte, m *core.Message) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, m.ID)
	b = append(b, `,"owner":`...)
	b = appendJSONString(b, m.Owner)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, m.Title)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, m.Name)
	b = append(b, `,"recipient":`...)
	b = appendJSONString(b, m.Recipient)
	b = append(b, `,"message":`...)
	if l, ok := m.Sealed(); ok {
		b = append(b, `"","sealed":{`...)
		sep := ""
		if l.Envelope != "" {
			b = append(b, `"envelope":`...)
			b = appendJSONString(b, l.Envelope)
			sep = ","
		}
		if l.Hint != "" {
			b = append(b, sep+`"hint":`...)
			b = appendJSONString(b, l.Hint)
		}
		b = append(b, '}')
	} else {
		b = appendJSONString(b, m.Body)
	}
	b = append(b, `,"interval":`...)
	b = appendJSONString(b, string(m.Interval))
	b = append(b, `,"sendDate":`...)
	b = strconv.AppendInt(b, millis(m.SendDate), 10)
	b = append(b, `,"isActive":`...)
	b = strconv.AppendBool(b, m.IsActive)
	b = append(b, `,"featured":`...)
	b = strconv.AppendBool(b, m.Featured)
	if m.WebhookURL != "" {
		b = append(b, `,"webhookUrl":`...)
		b = appendJSONString(b, m.WebhookURL)
	}
	b = append(b, `,"createdAt":`...)
	b = strconv.AppendInt(b, millis(m.CreatedAt), 10)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(m.DisplayStatus()))
	if !m.ReminderSentAt.IsZero() {
		b = append(b, `,"reminderSentAt":`...)
		b = strconv.AppendInt(b, m.ReminderSentAt.UnixMilli(), 10)
	}
	if !m.DeliveredAt.IsZero() {
		b = append(b, `,"deliveredAt":`...)
		b = strconv.AppendInt(b, m.DeliveredAt.UnixMilli(), 10)
	}
	if reason := failureReason(m); reason != "" {
		b = append(b, `,"failureReason":`...)
		b = appendJSONString(b, reason)
	}
	if !m.NoPostponeUntil.IsZero() {
		b = append(b, `,"postponeBlockedUntil":`...)
		b = strconv.AppendInt(b, m.NoPostponeUntil.UnixMilli(), 10)
	}
	b = appendRecipientsJSON(b, m)
	if len(m.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range m.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"code":`...)
			b = appendJSONString(b, w.Code)
			if w.Field != "" {
				b = append(b, `,"field":`...)
				b = appendJSONString(b, w.Field)
			}
			b = append(b, `,"message":`...)
			b = appendJSONString(b, w.Message)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendMessagesJSON appends the JSON array of ms, as messagesJSON(ms)
// marshals.
func appendMessagesJSON(b []byte, ms []*core.Message) []byte {
	b = append(b, '[')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMessageJSON(b, m)
	}
	return append(b, ']')
}

// appendSessionUserJSON appends the JSON of su as NewSessionUserJSON(su)
// marshals (GET /api/me, every page load).
func appendSessionUserJSON(b []byte, su *core.SessionUser) []byte {
	b = append(b, `{"uid":`...)
	b = appendJSONString(b, su.UID)
	b = append(b, `,"email":`...)
	b = appendJSONString(b, su.Email)
	b = append(b, `,"emailVerified":`...)
	b = strconv.AppendBool(b, su.EmailVerified)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, su.Name)
	b = append(b, `,"picture":`...)
	b = appendJSONString(b, su.Picture)
	b = append(b, `,"providers":`...)
	b = appendJSONStrings(b, su.Providers, "null")
	b = append(b, `,"planId":`...)
	b = appendJSONString(b, string(su.PlanID))
	b = append(b, `,"planIsActive":`...)
	b = strconv.AppendBool(b, su.PlanIsActive)
	b = append(b, `,"timezone":`...)
	b = appendJSONString(b, su.Timezone)
	b = append(b, `,"stripeSubscriptionStatus":`...)
	b = appendJSONString(b, su.StripeSubscriptionStatus)
	b = append(b, `,"messageLimit":`...)
	if su.MessageLimit > 0 {
		b = strconv.AppendInt(b, int64(su.MessageLimit), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"canAddMessage":`...)
	b = strconv.AppendBool(b, su.CanAddMessage)
	b = append(b, `,"recipientLimit":`...)
	b = strconv.AppendInt(b, int64(su.RecipientLimit), 10)
	b = append(b, `,"holdUntil":`...)
	if su.HoldUntil.IsZero() {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, millis(su.HoldUntil), 10)
	}
	b = append(b, `,"reminderLadder":`...)
	b = appendJSONStrings(b, su.ReminderLadder, "[]")
	b = append(b, `,"reminderAddress":`...)
	b = appendJSONString(b, su.ReminderAddress)
	b = append(b, `,"reminderAddressState":`...)
	b = appendJSONString(b, su.ReminderAddressState)
	b = append(b, `,"totp":`...)
	b = strconv.AppendBool(b, su.TOTP)
	b = append(b, `,"recoveryCodes":`...)
	b = strconv.AppendInt(b, int64(su.RecoveryCodes), 10)
	return append(b, '}')
}

// appendJSONStrings appends the JSON array of ss, or ifNil when ss is nil.
func appendJSONStrings(b []byte, ss []string, ifNil string) []byte {
	if ss == nil {
		return append(b, ifNil...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

var replyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// writeMessagePage writes a success envelope holding a page of the list,
// with its nextCursor beside the data when there is a next page.
func writeMessagePage(w http.ResponseWriter, r *http.Request, status int, p *core.MessagePage) {
	writeTagged(w, r, status, func(b []byte) []byte { return appendMessagePage(b, p) })
}

// appendMessagePage appends a page of the list as the envelope's data, and
// its nextCursor after it when there is a next page.
func appendMessagePage(b []byte, p *core.MessagePage) []byte {
	b = appendMessagesJSON(b, p.Messages)
	if p.NextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendJSONString(b, p.NextCursor)
	}
	return b
}

// writeMessage writes a success envelope holding m.
func writeMessage(w http.ResponseWriter, status int, m *core.Message) {
	writeAppended(w, status, func(b []byte) []byte { return appendMessageJSON(b, m) })
}

// writeAppended writes a success envelope whose data (and any fields after
// it) data appends, as writeData would.
func writeAppended(w http.ResponseWriter, status int, data func(b []byte) []byte) {
	writeTagged(w, nil, status, data)
}

// writeTagged is writeAppended that, given the request r of a read, tags
// the reply with its ETag and answers 304 Not Modified, without a body, when
// r's If-None-Match holds that tag (etag.go).
func writeTagged(w http.ResponseWriter, r *http.Request, status int, data func(b []byte) []byte) {
	bp := replyBuffers.Get().(*[]byte)
	b := appendEnvelope((*bp)[:0], data)
	tag := ""
	if r != nil {
		tag = etagOf(b)
	}
	writeEncoded(w, r, status, b, tag)
	if cap(b) <= 1<<20 {
		*bp = b
		replyBuffers.Put(bp)
	}
}

// appendEnvelope appends a success envelope whose data (and any fields
// after it) data appends.
func appendEnvelope(b []byte, data func(b []byte) []byte) []byte {
	b = append(b, `{"status":"success","data":`...)
	b = data(b)
	return append(b, "}\n"...)
}

// The headers of every encoded reply: shared values, set without
// canonicalizing (see withRequest).
var (
	noStore  = []string{"no-store"}
	jsonType = []string{"application/json; charset=utf-8"}
)

// writeEncoded writes the encoded success envelope b. With a tag (its
// ETag), the reply carries it and is 304 Not Modified, without a body, when
// r's If-None-Match holds it.
func writeEncoded(w http.ResponseWriter, r *http.Request, status int, b []byte, tag string) {
	var tagH []string
	if tag != "" {
		tagH = []string{tag}
	}
	writeReady(w, r, status, b, tagH, []string{strconv.Itoa(len(b))}, false)
}

// writeReady writes b, a JSON reply (gzipped when gzipped is set: the reply
// goes out as it is, replyWriter passing a reply that carries its
// Content-Encoding, with the Vary every compressible reply carries), with
// its ETag header value tagH (none when nil) and Content-Length lenH: the
// values a kept reply keeps beside its bytes (keptReply), shared, never
// changed, so that a reply from it makes none.
func writeReady(w http.ResponseWriter, r *http.Request, status int, b []byte, tagH, lenH []string, gzipped bool) {
	h := w.Header()
	h["Cache-Control"] = noStore
	if gzipped {
		h["Vary"] = varyEncoding
	}
	if tagH != nil && notModifiedH(w, r, tagH) {
		return
	}
	h["Content-Type"] = jsonType
	if gzipped {
		h["Content-Encoding"] = gzipEncoding
	}
	h["Content-Length"] = lenH
	w.WriteHeader(status)
	w.Write(b)
}

var gzipEncoding = []string{"gzip"}

// jsonSafe marks the ASCII bytes encoding/json copies as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json does: HTML characters
// and control characters escaped, invalid UTF-8 as U+FFFD, U+2028 and
// U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

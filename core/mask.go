package core

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
)

// emailPattern finds what looks like an email address in a text: an SMTP
// reply, a log line.
var emailPattern = regexp.MustCompile(`[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*`)

// MaskEmail shows an address as the log may: its first character and its
// domain, "a***@example.com".
func MaskEmail(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at <= 0 {
		return "***"
	}
	return address[:1] + "***" + address[at:]
}

// MaskEmails masks every address in s (MaskEmail), for logs: recipients'
// addresses are personal data, and mail servers quote them in their
// replies.
func MaskEmails(s string) string {
	if strings.IndexByte(s, '@') < 0 { // an address has one: most texts are passed as they are
		return s
	}
	return emailPattern.ReplaceAllStringFunc(s, MaskEmail)
}

// MaskingHandler is a log handler that masks every email address in what it
// passes on (MaskEmails): the message, string attributes, errors and
// Stringers. The server logs through one, so that recipients' addresses,
// which mail servers quote in their replies, never reach a log.
type MaskingHandler struct{ slog.Handler }

// NewMaskingHandler wraps h.
func NewMaskingHandler(h slog.Handler) *MaskingHandler { return &MaskingHandler{h} }

func (h *MaskingHandler) Handle(ctx context.Context, r slog.Record) error {
	if plain(r) {
		return h.Handler.Handle(ctx, r)
	}
	masked := slog.NewRecord(r.Time, r.Level, MaskEmails(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		masked.AddAttrs(maskAttr(a))
		return true
	})
	return h.Handler.Handle(ctx, masked)
}

func (h *MaskingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	for i, a := range attrs {
		attrs[i] = maskAttr(a)
	}
	return &MaskingHandler{h.Handler.WithAttrs(attrs)}
}

func (h *MaskingHandler) WithGroup(name string) slog.Handler {
	return &MaskingHandler{h.Handler.WithGroup(name)}
}

// plain reports whether r holds nothing to mask: no '@' in its message or
// string attributes, and no attribute of another kind that could hold
// text (groups, errors, Stringers, values resolved later). Such a record,
// every access log line among them, is passed on as it is.
func plain(r slog.Record) bool {
	if strings.IndexByte(r.Message, '@') >= 0 {
		return false
	}
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		switch a.Value.Kind() {
		case slog.KindString:
			ok = strings.IndexByte(a.Value.String(), '@') < 0
		case slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool, slog.KindDuration, slog.KindTime:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

func maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, MaskEmails(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, x := range g {
			out[i] = maskAttr(x)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, MaskEmails(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, MaskEmails(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

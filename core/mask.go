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
func MaskEmails(s string) string { return emailPattern.ReplaceAllStringFunc(s, MaskEmail) }

// MaskingHandler is a log handler that masks every email address in what it
// passes on (MaskEmails): the message, string attributes, errors and
// Stringers. The server logs through one, so that recipients' addresses,
// which mail servers quote in their replies, never reach a log.
type MaskingHandler struct{ slog.Handler }

// NewMaskingHandler wraps h.
func NewMaskingHandler(h slog.Handler) *MaskingHandler { return &MaskingHandler{h} }

func (h *MaskingHandler) Handle(ctx context.Context, r slog.Record) error {
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

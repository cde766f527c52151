package core

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// Paging of the author's list: GET /api/messages and the live list send a
// page at a time, so that a long list costs a reader what it shows.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// Page asks for one page of a list, newest first.
type Page struct {
	// Cursor is the NextCursor of the page before; "": the first page.
	Cursor string
	// Limit is the most messages to return, 1 to MaxPageSize; 0:
	// DefaultPageSize.
	Limit int
}

// MessagePage is one page of the author's list.
type MessagePage struct {
	Messages []*Message
	// NextCursor asks for the page after (Page.Cursor); "" on the last.
	NextCursor string
}

// cursorOf is the cursor of the page after m.
func cursorOf(m *Message) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(m.CreatedAt.UnixNano(), 10) + "." + m.ID))
}

func errBadPage(msg string) error { return Errorf(EInvalid, "%s", msg) }

// filter is the store's filter of p over owner's list, asking for one
// message more than the page, which tells whether a next page exists.
func (p Page) filter(owner string) (MessageFilter, int, error) {
	limit := p.Limit
	switch {
	case limit == 0:
		limit = DefaultPageSize
	case limit < 1 || limit > MaxPageSize:
		return MessageFilter{}, 0, errBadPage("The limit must be between 1 and 200.")
	}
	f := MessageFilter{Owner: owner, Limit: limit + 1}
	if p.Cursor == "" {
		return f, limit, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
	nanos, id, ok := strings.Cut(string(raw), ".")
	n, perr := strconv.ParseInt(nanos, 10, 64)
	if err != nil || !ok || perr != nil || id == "" || len(id) > 255 {
		return MessageFilter{}, 0, errBadPage("The cursor is not valid: use the nextCursor of the page before.")
	}
	f.After = &MessageCursor{CreatedAt: time.Unix(0, n).UTC(), ID: id}
	return f, limit, nil
}

package web

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"sync"

	"github.com/sendlater/sendlater/core"
)

// handleListMessages answers a page of the list (?cursor=, ?limit=), with
// the next page's cursor beside the data.
func (a *authorAPI) handleListMessages(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if a.gens != nil {
		a.writeKeptPage(w, r, p)
		return
	}
	page, err := a.messages.List(r.Context(), p)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessagePage(w, r, http.StatusOK, page)
}

// What the kept reads may hold: at most keptPages replies (pages of the
// list and messages) of at most keptPageMaxSize bytes (a page of 20 short
// messages is about 10 KiB), so at most 32 MiB, and beside each its gzip
// form once a client asked for it (JSON compresses to a third or less, so
// at most about 11 MiB more).
const (
	keptPages       = 512
	keptPageMaxSize = 64 << 10
)

// keptReply is a kept read (a page of the list, a message) as its reply:
// the envelope's bytes and their ETag, and the bytes gzipped, made once by
// the first client that takes gzip (gzipped).
type keptReply struct {
	body []byte
	tag  string
	gz   *keptGzip
	// The headers' values, made with the reply: its ETag and
	// Content-Length (writeReady).
	tagH, lenH []string
}

// newKeptReply is body kept with its tag and headers, its gzip form to be
// made on first use.
func newKeptReply(body []byte) keptReply {
	tag := etagOf(body)
	return keptReply{body: body, tag: tag, gz: new(keptGzip), tagH: []string{tag}, lenH: []string{strconv.Itoa(len(body))}}
}

// keptGzip is the gzip form of a kept reply's body, made at most once, and
// its Content-Length.
type keptGzip struct {
	once sync.Once
	b    []byte
	lenH []string
}

// gzipped returns e's body gzipped, made on the first call. The level is
// gzip's default, not the per-request BestSpeed: it is paid once per
// generation, and every later reply is smaller for it.
func (e keptReply) gzipped() []byte {
	e.gz.once.Do(func() {
		var buf bytes.Buffer
		buf.Grow(len(e.body) / 3)
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression) // a valid level cannot fail
		zw.Write(e.body)
		zw.Close()
		e.gz.b = buf.Bytes()
		e.gz.lenH = []string{strconv.Itoa(len(e.gz.b))}
	})
	return e.gz.b
}

// writeKeptPage answers a page of the list from its kept reply (writeKept).
func (a *authorAPI) writeKeptPage(w http.ResponseWriter, r *http.Request, p core.Page) {
	var kb [64]byte
	what := append(strconv.AppendInt(kb[:0], int64(p.Limit), 10), 0)
	what = append(what, p.Cursor...)
	a.writeKept(w, r, what, func() (func(b []byte) []byte, error) {
		page, err := a.messages.List(r.Context(), p)
		if err != nil {
			return nil, err
		}
		return func(b []byte) []byte { return appendMessagePage(b, page) }, nil
	})
}

// writeKept answers an author's read from its encoded reply, kept under
// the author's generation read before the store and reused while the
// generation has not moved: any committed write of the author's messages
// (this server's handlers, the scheduler, the CLI through the admin socket)
// moves it, so the next read builds the reply again (core.UserGenerations).
// what names the read among the author's (a list page's limit and cursor,
// which start with a digit; a message's id after "message"); read reads it
// and returns how to encode it. An error is answered, never kept. A kept
// reply is never changed: it is written, never appended to. A kept reply is
// the author's whoever read it, so the identity's scope is checked here
// first, as read would: a token without messages:read gets none. A client
// that takes gzip gets the kept gzip form (keptReply.gzipped), compressed
// once per generation instead of once per reply.
func (a *authorAPI) writeKept(w http.ResponseWriter, r *http.Request, what []byte, read func() (func(b []byte) []byte, error)) {
	if err := core.RequireScope(r.Context(), core.ScopeMessagesRead); err != nil {
		writeError(w, r, err)
		return
	}
	who := core.IdentityFrom(r.Context()).UserID
	// The key is put together on the stack and made a string only to be
	// kept: two allocations a read less.
	var kb [128]byte
	key := append(append(append(kb[:0], who...), 0), what...)
	gen := a.gens.UserGeneration(who)
	e, ok := a.kept.GetBytes(key, gen)
	if !ok {
		data, err := read()
		if err != nil {
			writeError(w, r, err)
			return
		}
		body := appendEnvelope(nil, data)
		e = newKeptReply(body)
		if len(body) <= keptPageMaxSize {
			a.kept.Put(string(key), gen, e)
		}
	}
	if rw, ok := w.(*replyWriter); ok && len(e.body) >= compressMinSize && rw.takesGzip() {
		gz := e.gzipped()
		writeReady(w, r, http.StatusOK, gz, e.tagH, e.gz.lenH, true)
		return
	}
	writeReady(w, r, http.StatusOK, e.body, e.tagH, e.lenH, false)
}

// pageOf reads the page a list request asks for.
func pageOf(r *http.Request) (core.Page, error) {
	q := r.URL.RawQuery
	p := core.Page{Cursor: queryValue(q, "cursor")}
	if v := queryValue(q, "limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, core.Errorf(core.EInvalid, "The limit must be a whole number between 1 and %d.", core.MaxPageSize)
		}
		p.Limit = n
	}
	return p, nil
}

// IdempotencyKeyHeader makes a POST /api/messages safe to retry.
const IdempotencyKeyHeader = "Idempotency-Key"

// createMessageRequest is POST /api/messages.
type createMessageRequest struct {
	Title      string        `json:"title"`
	Name       string        `json:"name"`
	Recipient  string        `json:"recipient"`
	Message    string        `json:"message"`
	Interval   core.Interval `json:"interval,omitempty"`
	WebhookURL string        `json:"webhookUrl,omitempty"`
	// Recipients, when given, are all the recipients; name and recipient
	// are then absent or the first's.
	Recipients []RecipientInputJSON `json:"recipients,omitempty"`
	// Sealed, instead of message, is a sealed message's envelope and hint
	// (docs/sealed.md); ID is then the id the envelope is bound to.
	ID     string      `json:"id,omitempty"`
	Sealed *SealedJSON `json:"sealed,omitempty"`
}

func (a *authorAPI) handleCreateMessage(w http.ResponseWriter, r *http.Request) {
	var req createMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	// A retry with the same Idempotency-Key gets the message the first made.
	m, err := a.messages.Create(r.Context(), req.input(r.Header.Get(IdempotencyKeyHeader)))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusCreated, m)
}

func (a *authorAPI) handleGetMessage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	read := func() (func(b []byte) []byte, error) {
		m, err := a.messages.Get(r.Context(), id)
		if err != nil {
			return nil, err
		}
		return func(b []byte) []byte { return appendMessageJSON(b, m) }, nil
	}
	if a.gens != nil {
		var kb [64]byte
		a.writeKept(w, r, append(append(kb[:0], "message\x00"...), id...), read)
		return
	}
	data, err := read()
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeTagged(w, r, http.StatusOK, data)
}

// updateMessageRequest is a partial edit: an absent or null field is left
// as it is.
type updateMessageRequest struct {
	Title      *string        `json:"title,omitempty"`
	Name       *string        `json:"name,omitempty"`
	Recipient  *string        `json:"recipient,omitempty"`
	Message    *string        `json:"message,omitempty"`
	Interval   *core.Interval `json:"interval,omitempty"`
	IsActive   *bool          `json:"isActive,omitempty"`
	WebhookURL *string        `json:"webhookUrl,omitempty"`
	// Recipients replaces the list.
	Recipients *[]RecipientInputJSON `json:"recipients,omitempty"`
	// Sealed re-seals the message (message absent).
	Sealed *SealedJSON `json:"sealed,omitempty"`
}

func (a *authorAPI) handleUpdateMessage(w http.ResponseWriter, r *http.Request) {
	var req updateMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := a.messages.Update(r.Context(), r.PathValue("id"), req.update())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

// update is the PATCH request as core takes it.
func (req *updateMessageRequest) update() core.MessageUpdate {
	return core.MessageUpdate{
		Title: req.Title, Name: req.Name, Recipient: req.Recipient, Body: req.Message,
		Interval: req.Interval, IsActive: req.IsActive, WebhookURL: req.WebhookURL,
		Recipients: recipientInputsPtr(req.Recipients), Sealed: req.Sealed.core(),
	}
}

func recipientInputsPtr(js *[]RecipientInputJSON) *[]core.RecipientInput {
	if js == nil {
		return nil
	}
	rs := recipientInputs(*js)
	if rs == nil {
		rs = []core.RecipientInput{}
	}
	return &rs
}

func (a *authorAPI) handlePostponeMessage(w http.ResponseWriter, r *http.Request) {
	m, err := a.messages.Postpone(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeMessage(w, http.StatusOK, m)
}

func (a *authorAPI) handleMessageEvents(w http.ResponseWriter, r *http.Request) {
	es, err := a.messages.Events(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, EventsJSON(es))
}

func (a *authorAPI) handleDeleteMessage(w http.ResponseWriter, r *http.Request) {
	if err := a.messages.Delete(r.Context(), r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

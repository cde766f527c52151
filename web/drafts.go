package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// DraftJSON is an author's unsent message form (GET and PUT
// /api/drafts/{key}): key is "new" or the id of the message it edits.
type DraftJSON struct {
	Key        string               `json:"key"`
	Title      string               `json:"title"`
	Recipients []DraftRecipientJSON `json:"recipients"`
	Message    string               `json:"message"`
	Interval   core.Interval        `json:"interval"`
	UpdatedAt  int64                `json:"updatedAt"`
}

// DraftRecipientJSON is one row of a draft's recipients, as typed.
type DraftRecipientJSON struct {
	Name      string `json:"name"`
	Recipient string `json:"recipient"`
}

// putDraftRequest is PUT /api/drafts/{key}'s body.
type putDraftRequest struct {
	Title      string               `json:"title"`
	Recipients []DraftRecipientJSON `json:"recipients"`
	Message    string               `json:"message"`
	Interval   core.Interval        `json:"interval"`
}

func newDraftJSON(d *core.Draft) *DraftJSON {
	out := &DraftJSON{Key: d.Key, Title: d.Title, Message: d.Body, Interval: d.Interval, UpdatedAt: millis(d.UpdatedAt),
		Recipients: make([]DraftRecipientJSON, len(d.Recipients))}
	for i, r := range d.Recipients {
		out.Recipients[i] = DraftRecipientJSON{Name: r.Name, Recipient: r.Address}
	}
	return out
}

// draftsRoutes registers the drafts of the signed-in author (public server
// only: an operator acting for a user has no use for their drafts).
func draftsRoutes(mux *http.ServeMux, drafts core.Drafts, signedIn guard) {
	mux.HandleFunc("GET /api/drafts/{key}", signedIn(func(w http.ResponseWriter, r *http.Request) {
		d, err := drafts.Get(r.Context(), r.PathValue("key"))
		if core.ErrorCode(err) == core.EDraftNotFound {
			// No draft is the usual answer, not a failure: a browser logs
			// every 404 in its console.
			writeData(w, http.StatusOK, nil)
			return
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, newDraftJSON(d))
	}))
	mux.HandleFunc("PUT /api/drafts/{key}", signedIn(func(w http.ResponseWriter, r *http.Request) {
		var req putDraftRequest
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		in := core.Draft{Title: req.Title, Body: req.Message, Interval: req.Interval}
		for _, x := range req.Recipients {
			in.Recipients = append(in.Recipients, core.DraftRecipient{Name: x.Name, Address: x.Recipient})
		}
		d, err := drafts.Put(r.Context(), r.PathValue("key"), in)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, newDraftJSON(d))
	}))
	mux.HandleFunc("DELETE /api/drafts/{key}", signedIn(func(w http.ResponseWriter, r *http.Request) {
		if err := drafts.Delete(r.Context(), r.PathValue("key")); err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, nil)
	}))
}

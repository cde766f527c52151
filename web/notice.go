package web

import (
	"context"
	"net/http"
)

// NoticeRequest is the body of POST /api/messages/{id}/notify: the
// recipient to tell.
type NoticeRequest struct {
	Recipient string `json:"recipient"`
}

// NoticeJSON is what POST /api/messages/{id}/notify did.
type NoticeJSON struct {
	Sent int `json:"sent"`
}

func (a *authorAPI) handleNotifyRecipient(w http.ResponseWriter, r *http.Request) {
	var req NoticeRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if err := a.messages.NotifyRecipient(r.Context(), r.PathValue("id"), req.Recipient); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NoticeJSON{Sent: 1})
}

// NotifyRecipient tells the recipient address of message id that a message
// waits for them.
func (c *APIClient) NotifyRecipient(ctx context.Context, id, address string) error {
	var out NoticeJSON
	return c.t.do(ctx, "POST", messagePath(id)+"/notify", NoticeRequest{Recipient: address}, &out)
}

package web

import (
	"context"
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// EmailPreviewJSON is the email one recipient will receive (POST
// /api/messages/preview).
type EmailPreviewJSON struct {
	To      AddressJSON `json:"to"`
	Subject string      `json:"subject"`
	Text    string      `json:"text"`
	HTML    string      `json:"html"`
}

// AddressJSON is a name and an address.
type AddressJSON struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

// TestSendJSON is what POST /api/messages/{id}/test did.
type TestSendJSON struct {
	Sent int `json:"sent"`
}

func (a *authorAPI) handlePreview(w http.ResponseWriter, r *http.Request) {
	var req createMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	ps, err := a.messages.Preview(r.Context(), req.input(""))
	writePreviews(w, r, ps, err)
}

// handlePreviewMessage renders a stored message, as the changes in the
// body (PATCH's fields; {} for none) would make it.
func (a *authorAPI) handlePreviewMessage(w http.ResponseWriter, r *http.Request) {
	var req updateMessageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	ps, err := a.messages.PreviewMessage(r.Context(), r.PathValue("id"), req.update())
	writePreviews(w, r, ps, err)
}

func writePreviews(w http.ResponseWriter, r *http.Request, ps []core.EmailPreview, err error) {
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]EmailPreviewJSON, len(ps))
	for i, p := range ps {
		out[i] = EmailPreviewJSON{To: AddressJSON{p.To.Name, p.To.Address}, Subject: p.Subject, Text: p.Text, HTML: p.HTML}
	}
	writeData(w, http.StatusOK, out)
}

func (a *authorAPI) handleSendTest(w http.ResponseWriter, r *http.Request) {
	n, err := a.messages.SendTest(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, TestSendJSON{Sent: n})
}

// input is the create request as core takes it.
func (req *createMessageRequest) input(idempotencyKey string) core.MessageInput {
	return core.MessageInput{
		Title: req.Title, Name: req.Name, Recipient: req.Recipient, Body: req.Message,
		Interval: req.Interval, WebhookURL: req.WebhookURL, IdempotencyKey: idempotencyKey,
		Recipients: recipientInputs(req.Recipients), ID: req.ID, Sealed: req.Sealed.core(),
	}
}

// Preview renders what each recipient will receive, storing nothing.
func (c *APIClient) Preview(ctx context.Context, in core.MessageInput) ([]core.EmailPreview, error) {
	var out []EmailPreviewJSON
	err := c.t.do(ctx, "POST", "/api/messages/preview", createMessageRequest{
		Title: in.Title, Name: in.Name, Recipient: in.Recipient, Message: in.Body,
		Interval: in.Interval, WebhookURL: in.WebhookURL, Recipients: recipientInputsJSON(in.Recipients),
		ID: in.ID, Sealed: sealedJSON(in.Sealed),
	}, &out)
	return previewsCore(out, err)
}

// PreviewMessage renders what each recipient of the stored message id
// will receive, as up would make it, storing nothing.
func (c *APIClient) PreviewMessage(ctx context.Context, id string, up core.MessageUpdate) ([]core.EmailPreview, error) {
	var out []EmailPreviewJSON
	err := c.t.do(ctx, "POST", messagePath(id)+"/preview", updateRequestOf(up), &out)
	return previewsCore(out, err)
}

func previewsCore(out []EmailPreviewJSON, err error) ([]core.EmailPreview, error) {
	if err != nil {
		return nil, err
	}
	ps := make([]core.EmailPreview, len(out))
	for i, p := range out {
		ps[i] = core.EmailPreview{To: core.Address{Name: p.To.Name, Address: p.To.Address}, Subject: p.Subject, Text: p.Text, HTML: p.HTML}
	}
	return ps, nil
}

// SendTest emails the author what each recipient will receive.
func (c *APIClient) SendTest(ctx context.Context, id string) (int, error) {
	var out TestSendJSON
	if err := c.t.do(ctx, "POST", messagePath(id)+"/test", nil, &out); err != nil {
		return 0, err
	}
	return out.Sent, nil
}

package web_test

import (
	"net/http"
	"testing"

	"github.com/sendlater/sendlater/web"
)

// POST /api/messages/{id}/notify tells one recipient now: for a confirmed
// author, a recipient of their own message, once a day per address.
func TestNotifyRecipientAPI(t *testing.T) {
	a := mustIdentityAPI(t)
	ada := a.author("ada@example.com")
	other := a.author("other@example.com")
	m := a.createMessage(ada, nil)
	path := "/api/messages/" + m.ID + "/notify"
	ann := map[string]any{"recipient": "ann@example.com"}
	a.fail(nil, http.StatusForbidden, "auth/email-not-verified", "POST", path, ada.token, ann)
	a.MustVerify(t, ada.uid)
	_, env := a.fail(nil, http.StatusUnprocessableEntity, "request/validation", "POST", path, ada.token, map[string]any{"recipient": "eve@example.com"})
	if env.Fields["recipient"] != "This address is not a recipient of this message" {
		t.Fatalf("fields %v", env.Fields)
	}
	a.fail(nil, http.StatusNotFound, "message/not-found", "POST", path, other.token, ann)
	var sent web.NoticeJSON
	a.ok(nil, http.StatusOK, "POST", path, ada.token, ann, &sent)
	if sent.Sent != 1 {
		t.Fatalf("sent %+v", sent)
	}
	resp, _ := a.fail(nil, http.StatusTooManyRequests, "auth/too-many-requests", "POST", path, ada.token, ann)
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

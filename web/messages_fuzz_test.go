package web_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// FuzzMessageBodies sends arbitrary bodies to POST /api/messages and PATCH
// /api/messages/{id} as a signed-in Pro user: every reply is an envelope,
// none is a 5xx, and a stored message reads back. The seeds run in the
// normal test suite; to fuzz:
//
//	go test ./web -run '^$' -fuzz FuzzMessageBodies -fuzztime 1m -fuzzminimizetime 5s
//
// (the huge seeds make the default minimisation of a new input slow).
func FuzzMessageBodies(f *testing.F) {
	for _, seed := range []string{
		`{"title":"For my sister","name":"Ann","recipient":"ann@example.com","message":"The key is under the blue pot.","interval":"6M"}`,
		`{"title":"t","name":"n","recipient":"r@example.com","message":"m","interval":null}`,
		`{"title":"t","name":"n","recipient":"r@example.com","message":"m","isActive":false}`,
		`{"isActive":false}`, `{"isActive":"false"}`, `{"interval":"12M"}`, `{"interval":""}`, `{"interval":"1m"}`,
		`{"title":null,"name":null,"recipient":null,"message":null,"interval":null,"isActive":null,"webhookUrl":null}`,
		`{"title":"\u0000","name":"\u0000","recipient":"a\u0000@example.com","message":"\u0000"}`,
		"{\"title\":\"\xff\xfe\",\"name\":\"\xc3\x28\",\"recipient\":\"\xed\xa0\x80@example.com\",\"message\":\"\xf0\x28\x8c\x28\"}",
		`{"title":"` + strings.Repeat("é", 5000) + `","name":"n","recipient":"r@example.com","message":"` + strings.Repeat("x", 200_000) + `"}`,
		`{"title":{"nested":{"deeper":[1,2,{"x":null}]}},"name":[],"recipient":1e999,"message":true}`,
		`{"title":"t","name":"Ann\r\nBcc: all@example.com","recipient":"ann@example.com\r\nBcc: x@example.com","message":"m"}`,
		`{"title":"t","name":"n","recipient":"\"quoted\"@example.com","message":"m","interval":"\u00361M"}`,
		`{"title":"t","title":"twice","name":"n","recipient":"r@example.com","message":"m"}`,
		`{"webhookUrl":"javascript:alert(1)"}`, `{"owner":"someone-else"}`, `{"id":"x","sendDate":0}`,
		strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000),
		`null`, `[]`, `""`, `0`, ``, `{`, `{}{}`, "\xff\xfe\xfd",
	} {
		f.Add(false, []byte(seed))
		f.Add(true, []byte(seed))
	}

	e := newHandlerEnv(f)
	tok := e.proAuthor(f, "fuzz@example.com")
	target, err := e.Messages.Create(e.As(tok.User.ID), core.MessageInput{Title: "t", Name: "n", Recipient: "r@example.com", Body: "b"})
	if err != nil {
		f.Fatal(err)
	}
	h := e.handler(nil)

	serve := func(t *testing.T, method, path string, body []byte) envelope {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok.IDToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body)
		}
		var env envelope
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || (env.Status != "success" && env.Status != "error") {
			t.Fatalf("%s %s %q: no envelope: %s", method, path, body, rec.Body)
		}
		return env
	}
	f.Fuzz(func(t *testing.T, edit bool, body []byte) {
		method, path := "POST", "/api/messages"
		if edit {
			method, path = "PATCH", "/api/messages/"+target.ID
		}
		env := serve(t, method, path, body)
		if env.Status != "success" {
			return
		}
		var m messageReply
		if err := json.Unmarshal(env.Data, &m); err != nil || m.ID == "" {
			t.Fatalf("%s %q: data %s", method, body, env.Data)
		}
		if back := serve(t, "GET", "/api/messages/"+m.ID, nil); back.Status != "success" {
			t.Fatalf("%s %q: the message does not read back: %+v", method, body, back)
		}
	})
}

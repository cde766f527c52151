package web_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// anonymousAuthPaths are the identity endpoints anyone may call.
var anonymousAuthPaths = []string{
	"/api/auth/signup", "/api/auth/signin", "/api/auth/password-reset",
	"/api/auth/password-reset/confirm", "/api/auth/action/check", "/api/auth/action/apply",
}

// FuzzAnonymousAuthBodies sends arbitrary bodies to the anonymous identity
// endpoints: every reply is an envelope and none is a 5xx.
func FuzzAnonymousAuthBodies(f *testing.F) {
	for _, seed := range []string{
		`{"email":"ann@example.com","password":"a long and unusual passphrase","name":"Ann","timezone":"Europe/Paris"}`,
		`{"email":"ann@example.com","password":"a long and unusual passphrase"}`,
		`{"email":"","password":""}`,
		`{"email":"a@b","password":"\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000","name":"\n"}`,
		`{"email":"Ann <ann@example.com>","password":"x","timezone":"../../etc/passwd"}`,
		`{"email":["ann@example.com"]}`,
		`{"oobCode":"x","password":"a long and unusual passphrase"}`,
		`{"oobCode":null}`,
		`{"email":"ann@example.com"}{"email":"ann@example.com"}`,
		`{"timezone":"Local","email":"ann@example.com","password":"a long and unusual passphrase"}`,
		`null`, `[]`, `"x"`, ``, `{`, "\xff\xfe",
	} {
		for i := range anonymousAuthPaths {
			f.Add(uint8(i), []byte(seed))
		}
	}
	h := newHandlerEnv(f).handler(nil)

	f.Fuzz(func(t *testing.T, endpoint uint8, body []byte) {
		path := anonymousAuthPaths[int(endpoint)%len(anonymousAuthPaths)]
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, rec.Code, rec.Body)
		}
		var env envelope
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || (env.Status != "success" && env.Status != "error") {
			t.Fatalf("POST %s %q: no envelope: %s", path, body, rec.Body)
		}
	})
}

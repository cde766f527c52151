package web_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/sendlater/sendlater/core"
)

// What becomes an email header is strict, and every refusal names the
// field and its rule in words, never a Go type.
func TestInputThatBecomesHeadersIsStrict(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")
	for _, tc := range []struct {
		method, path string
		body         any
		field, want  string
	}{
		{"POST", "/api/messages", newMessage(map[string]any{"name": "Anna \u202eevil"}), "name",
			"The recipient name must not contain control characters or text direction marks"},
		{"POST", "/api/messages", newMessage(map[string]any{"title": "Bell\a"}), "title",
			"The title must not contain control characters or text direction marks"},
		{"POST", "/api/messages", newMessage(map[string]any{"recipient": "anna@localhost"}), "recipient",
			"Please enter a valid email address"},
		{"POST", "/api/messages", newMessage(map[string]any{"recipient": "anna@[192.0.2.1]"}), "recipient",
			"Please enter a valid email address"},
		{"POST", "/api/auth/signup", map[string]string{"email": "bob@127.0.0.1", "password": pw}, "email",
			"Please enter a valid email address"},
		{"PATCH", "/api/me", map[string]string{"name": "Ann\u2066"}, "name",
			"The name must not contain control characters or text direction marks"},
		{"POST", "/api/contact", map[string]string{"name": "Cy\x1b[31m", "email": "cy@example.com", "message": "Hi"}, "name",
			"The name must not contain control characters or text direction marks"},
		{"POST", "/api/contact", map[string]string{"email": "cy@intranet", "message": "Hi"}, "email",
			"Please enter a valid email address"},
	} {
		_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, tc.method, tc.path, who.token, tc.body)
		if env.Fields[tc.field] != tc.want {
			t.Errorf("%s %s: fields %v, want %s: %q", tc.method, tc.path, env.Fields, tc.field, tc.want)
		}
	}
	if ms := a.listMessages(who); len(ms) != 0 {
		t.Fatalf("a refused create stored %d messages", len(ms))
	}

	goType := regexp.MustCompile(`\b(int|int64|float64|string|bool|struct|map)\b|core\.\w+|\[\]`)
	for _, tc := range []struct {
		method, path, body string
		want               string
	}{
		{"POST", "/api/messages", `{"title": 5}`, `The field "title" must be text, not a number.`},
		{"POST", "/api/messages", `{"interval": ["1M"]}`, `The field "interval" must be text, not a list.`},
		{"PATCH", "/api/messages/x", `{"isActive": "yes"}`, `The field "isActive" must be true or false, not text.`},
		{"POST", "/api/auth/signin", `{"email": {"a": 1}}`, `The field "email" must be text, not an object.`},
		{"POST", "/api/messages", `[1, 2]`, `The request body must be a JSON object, not a list.`},
	} {
		_, env := a.fail(nil, http.StatusBadRequest, core.EInvalidJSON, tc.method, tc.path, who.token, tc.body)
		if env.Message != tc.want || goType.MatchString(env.Message) {
			t.Errorf("%s %s %s: %q, want %q", tc.method, tc.path, tc.body, env.Message, tc.want)
		}
	}
}

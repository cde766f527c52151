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
			"The recipient name may not contain control, invisible or direction-changing characters"},
		{"POST", "/api/messages", newMessage(map[string]any{"title": "Bell\a"}), "title",
			"The title may not contain control, invisible or direction-changing characters"},
		{"POST", "/api/messages", newMessage(map[string]any{"recipient": "anna@localhost"}), "recipient",
			"Please enter a valid email address"},
		{"POST", "/api/messages", newMessage(map[string]any{"recipient": "anna@[192.0.2.1]"}), "recipient",
			"Please enter a valid email address"},
		{"POST", "/api/auth/signup", map[string]string{"email": "bob@127.0.0.1", "password": pw}, "email",
			"Please enter a valid email address"},
		{"PATCH", "/api/me", map[string]string{"name": "Ann\u2066"}, "name",
			"The name may not contain control, invisible or direction-changing characters"},
		{"POST", "/api/contact", map[string]string{"name": "Cy\x1b[31m", "email": "cy@example.com", "message": "Hi"}, "name",
			"The name may not contain control, invisible or direction-changing characters"},
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

// Every user-given name and title follows one text rule (core/text.go): no
// control, invisible or direction-changing character, whatever the entry
// point; the refusal is a 422 naming the field and the rule, and nothing is
// stored.
func TestNamesAndTitlesRefuseInvisibleCharacters(t *testing.T) {
	a := mustIdentityAPI(t)
	who := a.author("ann@example.com")
	const rule = " may not contain control, invisible or direction-changing characters"
	for _, tc := range []struct {
		method, path string
		body         any
		field, want  string
	}{
		{"POST", "/api/me/tokens", map[string]string{"name": "ci\x00token"}, "name", "The name" + rule},
		{"POST", "/api/me/tokens", map[string]string{"name": "laptop \u202egpj.exe"}, "name", "The name" + rule},
		{"POST", "/api/me/tokens", map[string]string{"name": "\ufeffscript"}, "name", "The name" + rule},
		{"POST", "/api/messages", newMessage(map[string]any{"title": "\ufeffFor my sister"}), "title", "The title" + rule},
		{"POST", "/api/messages", newMessage(map[string]any{"title": "For my\u200bsister"}), "title", "The title" + rule},
		{"POST", "/api/messages", newMessage(map[string]any{"name": "An\u00adn"}), "name", "The recipient name" + rule},
		{"POST", "/api/messages", newMessage(map[string]any{"name": nil, "recipient": nil, "recipients": []map[string]string{
			{"name": "Ann", "recipient": "ann@example.com"}, {"name": "Bo\u200b", "recipient": "bo@example.com"}}}),
			"recipients[1].name", "The recipient name" + rule},
		{"PATCH", "/api/me", map[string]string{"name": "Ann\u200b"}, "name", "The name" + rule},
		{"PATCH", "/api/me", map[string]string{"name": "\u3164"}, "name", "The name" + rule},
		{"POST", "/api/auth/signup", map[string]string{"email": "bob@example.com", "password": pw, "name": "Bob\u00ad"}, "name", "The name" + rule},
		{"POST", "/api/contact", map[string]string{"name": "Cy\u2060", "email": "cy@example.com", "message": "Hi"}, "name", "The name" + rule},
		{"POST", "/api/messages", newMessage(map[string]any{"message": "The key\x00"}), "message", "The message may not contain NUL characters"},
	} {
		_, env := a.fail(nil, http.StatusUnprocessableEntity, core.EValidation, tc.method, tc.path, who.token, tc.body)
		if env.Fields[tc.field] != tc.want {
			t.Errorf("%s %s %+q: fields %v, want %s: %q", tc.method, tc.path, tc.body, env.Fields, tc.field, tc.want)
		}
	}
	if ms := a.listMessages(who); len(ms) != 0 {
		t.Fatalf("a refused create stored %d messages", len(ms))
	}
	resp, env := a.call(nil, "GET", "/api/me/tokens", who.token, nil)
	if resp.StatusCode != http.StatusOK || string(env.Data) != "[]" {
		t.Fatalf("tokens after the refusals: %d %s", resp.StatusCode, env.Data)
	}
	// A name in a script that needs its joiners, and an emoji sequence, pass.
	a.ok(nil, http.StatusCreated, "POST", "/api/me/tokens", who.token,
		map[string]string{"name": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \U0001f469\u200d\U0001f4bb"}, nil)
}

package web

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The web app's TypeScript types of the wire and the Go structs whose JSON
// tags make that wire: a field renamed on one side only breaks the app
// without a type error anywhere, so the names must be the same, and a Go
// field that may be left out (omitempty) must be optional in TypeScript.
//
// except names fields the check leaves out on purpose, each with its reason.
var wireTypes = []struct {
	file, name string // under web/ui/src
	goType     any
	except     []string
}{
	{"lib/auth.ts", "SessionUser", SessionUserJSON{}, nil},
	// user is left out only by a re-auth, whose reply the app types as Omit<SessionGrant, "user">.
	{"lib/auth.ts", "SessionGrant", TokensJSON{}, []string{"user"}},
	{"lib/plans.ts", "Plan", PlanJSON{}, nil},
	{"lib/social.ts", "Provider", ProviderJSON{}, nil},
	{"lib/public-settings.ts", "PublicSettings", PublicSettings{}, nil},
	// The admin socket's fields never reach the web app.
	{"features/dashboard/api/messages.ts", "Message", MessageJSON{}, slices.Collect(maps.Keys(jsonFields(reflect.TypeFor[AdminMessageFields]())))},
	{"features/dashboard/api/messages.ts", "Recipient", RecipientJSON{}, nil},
	{"features/dashboard/api/messages.ts", "TimelineEvent", EventJSON{}, nil},
	{"features/dashboard/api/messages.ts", "EmailPreview", EmailPreviewJSON{}, nil},
	{"features/settings/api/account.ts", "LinkedAccount", LinkedAccountJSON{}, nil},
	{"features/settings/api/account.ts", "AccessToken", AccessTokenJSON{}, nil},
	{"features/email-action/api/action.ts", "ActionInfo", ActionInfoJSON{}, nil},
	{"features/postpone/api/postpone.ts", "PostponeView", postponeViewJSON{}, nil},
	// website is the honeypot, sent beside the form's fields (sendContactForm).
	{"features/contact/api/contact.ts", "ContactForm", contactRequest{}, []string{"website"}},
}

func TestWireTypesMatchTypeScript(t *testing.T) {
	for _, w := range wireTypes {
		src, err := os.ReadFile(filepath.Join("ui", "src", filepath.FromSlash(w.file)))
		if err != nil {
			t.Fatal(err)
		}
		ts, ok := tsFields(string(src), w.name)
		if !ok {
			t.Errorf("%s: no object type %s", w.file, w.name)
			continue
		}
		goFields := jsonFields(reflect.TypeOf(w.goType))
		for _, name := range w.except {
			delete(goFields, name)
			delete(ts, name)
		}
		for _, d := range diffFields(ts, goFields) {
			t.Errorf("%s %s and %T: %s", w.file, w.name, w.goType, d)
		}
	}
}

// The check itself: a tag renamed in Go, a field renamed in TypeScript, an
// omitempty field that TypeScript says is always there are each caught.
func TestWireCheckCatchesRenames(t *testing.T) {
	type reply struct {
		ID       string `json:"id"`
		SendDate int64  `json:"sendDate"`
		Note     string `json:"note,omitempty"`
		Skipped  string `json:"-"`
	}
	same := `export type Reply = {
  id: string;
  // a comment: with a colon
  sendDate: number;
  /** A note: not a field, nor its "note?:" */
  note?: string;
};`
	ts, ok := tsFields(same, "Reply")
	if !ok || len(wireDiff(ts, reflect.TypeOf(reply{}))) != 0 {
		t.Fatalf("the same wire: %v %v", ts, wireDiff(ts, reflect.TypeOf(reply{})))
	}
	for _, c := range []struct{ ts, want string }{
		{strings.Replace(same, "sendDate", "sendAt", 1), `"sendDate" is in Go only`},
		{strings.Replace(same, "  note?: string", "  note: string", 1), `"note" may be absent (omitempty) but is not optional`},
		{`export type Reply = { id: string; sendDate: number; note?: string; extra: boolean };`, `"extra" is in TypeScript only`},
	} {
		ts, _ := tsFields(c.ts, "Reply")
		if d := wireDiff(ts, reflect.TypeOf(reply{})); !slices.Contains(d, c.want) {
			t.Errorf("%q: %v, want %q", c.ts, d, c.want)
		}
	}
	type renamed struct {
		ID       string `json:"id"`
		SendDate int64  `json:"sendAt"`
		Note     string `json:"note,omitempty"`
	}
	ts, _ = tsFields(same, "Reply")
	if d := wireDiff(ts, reflect.TypeOf(renamed{})); !slices.Contains(d, `"sendDate" is in TypeScript only`) {
		t.Errorf("a Go tag renamed: %v", d)
	}
}

// tsFields returns the fields of the object type name declared in src
// (`type name = { ... }`), each with whether it is optional.
func tsFields(src, name string) (map[string]bool, bool) {
	start := regexp.MustCompile(`(?m)^(?:export )?type ` + name + ` = \{`).FindStringIndex(src)
	if start == nil {
		return nil, false
	}
	body, depth := src[start[1]:], 1
	end := strings.IndexFunc(body, func(r rune) bool {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		}
		return depth == 0
	})
	if end < 0 {
		return nil, false
	}
	body = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`).ReplaceAllString(body[:end], "")
	fields := map[string]bool{}
	field := regexp.MustCompile(`^\s*(\w+)(\??)\s*:`)
	// The fields are the statements at the type's own depth.
	depth, from := 0, 0
	for i, r := range body + ";" {
		switch {
		case r == '{' || r == '(' || r == '<' || r == '[':
			depth++
		case r == '}' || r == ')' || r == '>' || r == ']':
			depth--
		case depth == 0 && (r == ';' || r == '\n'):
			if m := field.FindStringSubmatch(body[from:min(i, len(body))]); m != nil {
				fields[m[1]] = m[2] == "?"
			}
			from = i + 1
		}
	}
	return fields, true
}

// wireDiff lists how the JSON fields of the struct type t differ from the
// TypeScript fields ts.
func wireDiff(ts map[string]bool, t reflect.Type) []string {
	return diffFields(ts, jsonFields(t))
}

// diffFields lists how the JSON fields goFields (name: omitempty) differ
// from the TypeScript fields ts (name: optional).
func diffFields(ts, goFields map[string]bool) []string {
	var diff []string
	seen := map[string]bool{}
	for name, omitempty := range goFields {
		seen[name] = true
		optional, ok := ts[name]
		switch {
		case !ok:
			diff = append(diff, `"`+name+`" is in Go only`)
		case omitempty && !optional:
			diff = append(diff, `"`+name+`" may be absent (omitempty) but is not optional`)
		}
	}
	for name := range ts {
		if !seen[name] {
			diff = append(diff, `"`+name+`" is in TypeScript only`)
		}
	}
	slices.Sort(diff)
	return diff
}

// jsonFields returns the JSON names of t's fields, with whether each is
// omitempty; embedded structs' fields are t's.
func jsonFields(t reflect.Type) map[string]bool {
	fields := map[string]bool{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for n, o := range jsonFields(ft) {
				fields[n] = o
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = slices.Contains(strings.Split(opts, ","), "omitempty") || strings.Contains(opts, "omitzero")
	}
	return fields
}

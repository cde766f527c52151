package tui

import (
	"encoding/json"
	"maps"
	"os"
	"testing"
)

// sealCheck is a case of testdata/sealed/checks.json: what the seal's
// fields hold and the words each field is refused with (none: it seals).
// web/ui's seal-fields.test.ts reads the same file, so the TUI and the web
// app refuse the same passphrases in the same words.
type sealCheck struct {
	Name       string            `json:"name"`
	Passphrase string            `json:"passphrase"`
	Again      string            `json:"again"`
	Hint       string            `json:"hint"`
	Errors     map[string]string `json:"errors"`
}

func TestSealChecksAreTheWebApps(t *testing.T) {
	raw, err := os.ReadFile("../testdata/sealed/checks.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []sealCheck `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 8 {
		t.Fatalf("%d cases", len(file.Cases))
	}
	for _, c := range file.Cases {
		got := sealErrors(c.Passphrase, c.Again, c.Hint)
		if c.Errors == nil {
			c.Errors = map[string]string{}
		}
		if !maps.Equal(got, c.Errors) {
			t.Errorf("%s: %q, want %q", c.Name, got, c.Errors)
		}
	}
}

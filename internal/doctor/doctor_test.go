package doctor

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Write marks each check ✓, ✗ or -, with the fix under a ✗; WriteJSON
// gives scripts the same as one array, every field present but skipped.
func TestWriteAndWriteJSON(t *testing.T) {
	s := Section{Name: "host", Title: "Host: data_dir ./data"}
	s.Pass("free disk", "41.2 GiB free")
	s.Skip("admin socket", "no server runs")
	s.Fail("key", "mode 0644", "chmod 600 data/sendlater.key")
	var text bytes.Buffer
	if n := Write(&text, s); n != 1 || text.String() != "Host: data_dir ./data\n"+
		"  ✓ free disk: 41.2 GiB free\n"+
		"  - admin socket: no server runs\n"+
		"  ✗ key: mode 0644\n"+
		"      fix: chmod 600 data/sendlater.key\n" {
		t.Fatalf("Write: %d\n%s", n, text.String())
	}
	var js bytes.Buffer
	n, err := WriteJSON(&js, s)
	var got []map[string]any
	if err != nil || n != 1 || json.Unmarshal(js.Bytes(), &got) != nil || len(got) != 3 {
		t.Fatalf("WriteJSON: %d %v\n%s", n, err, js.String())
	}
	want := []map[string]any{
		{"section": "host", "check": "free disk", "ok": true, "detail": "41.2 GiB free", "fix": ""},
		{"section": "host", "check": "admin socket", "ok": true, "skipped": true, "detail": "no server runs", "fix": ""},
		{"section": "host", "check": "key", "ok": false, "detail": "mode 0644", "fix": "chmod 600 data/sendlater.key"},
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("check %d: %v, want %v", i, got[i], want[i])
		}
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("check %d: %s = %v, want %v", i, k, got[i][k], v)
			}
		}
	}
}

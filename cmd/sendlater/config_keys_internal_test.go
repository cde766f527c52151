package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryProjectVariableIsASettingOrAllowed: a SENDLATER_ variable named
// in the project's code, build or scripts (the tests' switches, the build's,
// the completion scripts') sets a key or is in notSettings; else the typo
// check would refuse it and stop `make test`, CI or completion. The docs
// are left out: they name typos on purpose.
func TestEveryProjectVariableIsASettingOrAllowed(t *testing.T) {
	known := newKnownKeys()
	settings := map[string]bool{}
	for _, k := range known.leaves {
		settings[envName(k)] = true
	}
	// A prefix that names a family of settings: "SENDLATER_STRIPE_*".
	family := func(name string) bool {
		for s := range settings {
			if strings.HasPrefix(s, name+"_") {
				return true
			}
		}
		return false
	}
	name := regexp.MustCompile(`SENDLATER_[A-Z0-9_]*[A-Z0-9]`)
	root := filepath.Join("..", "..")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "dist", "bin", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") || strings.HasSuffix(path, "config_typo_test.go") || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, n := range name.FindAllString(string(b), -1) {
			seen++
			if !settings[n] && !isNotSetting(n) && !isNotSetting(n+"_") && !family(n) {
				t.Errorf("%s names %s: neither a setting nor in notSettings (config_keys.go)", path, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("only %d SENDLATER_ names found under %s: the walk missed the repository", seen, root)
	}
}

// TestNearestKey: the suggestion is the key meant, or none when nothing is
// close.
func TestNearestKey(t *testing.T) {
	keys := newKnownKeys().leaves
	for typed, want := range map[string]string{
		"adress": "addr", "mail.smtp.hots": "mail.smtp.host", "base_ulr": "base_url", "smtp.port": "mail.smtp.port",
		"store.drvier": "store.driver", "schedular.interval": "scheduler.interval", "colour": "", "x": "",
	} {
		if got := nearest(typed, keys, suffixMatch(typed, keys)); got != want {
			t.Errorf("nearest(%q) = %q, want %q", typed, got, want)
		}
	}
	if d := editDistance("hots", "host"); d != 1 {
		t.Errorf("a swap costs %d, want 1", d)
	}
}

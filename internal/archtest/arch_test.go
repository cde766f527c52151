package archtest_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/sendlater/sendlater"

// pkg is what go list tells of one package of the module.
type pkg struct {
	ImportPath string
	Deps       []string // every package it depends on, transitively
	Imports    []string
}

// packages lists the module's packages (not their tests) with their
// dependencies.
func packages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Deps,Imports", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var ps []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if len(ps) < 10 {
		t.Fatalf("go list found %d packages: the test looks in the wrong place", len(ps))
	}
	return ps
}

// under reports whether path is a package of this module under dir (a
// folder relative to the module root, e.g. "store").
func under(path, dir string) bool {
	p := module + "/" + dir
	return path == p || strings.HasPrefix(path, p+"/")
}

// The arrows of DESIGN.md: cmd -> (web, tui, store, mailer, webhook,
// billing, oauth) -> core.
func TestArrowsPointInward(t *testing.T) {
	ps := packages(t)
	rooms := map[string]bool{}
	for _, p := range ps {
		rooms[strings.SplitN(strings.TrimPrefix(p.ImportPath, module+"/"), "/", 2)[0]] = true
		switch {
		case under(p.ImportPath, "core"):
			// core imports nothing of ours: only the standard library and
			// golang.org/x.
			for _, d := range p.Deps {
				first := strings.Split(d, "/")[0]
				if strings.Contains(first, ".") && !strings.HasPrefix(d, "golang.org/x/") {
					t.Errorf("%s depends on %s", p.ImportPath, d)
				}
			}
		case under(p.ImportPath, "metrics"), under(p.ImportPath, "tracing"):
			// The metrics room turns core.Metrics into Prometheus families,
			// the tracing room core.Tracer into OpenTelemetry spans: of ours
			// they know core only.
			for _, d := range p.Imports {
				if strings.HasPrefix(d, module+"/") && !under(d, "core") {
					t.Errorf("%s imports %s", p.ImportPath, d)
				}
			}
		case under(p.ImportPath, "web"), under(p.ImportPath, "tui"):
			// Front ends talk to core's interfaces, never to a store, a mail
			// transport, the payment provider, the sign-in providers, the
			// passkey ceremonies, DNS, the metrics' Prometheus or the traces'
			// OpenTelemetry.
			for _, d := range p.Deps {
				if under(d, "store") || under(d, "mailer") || under(d, "billing") || under(d, "oauth") || under(d, "metrics") ||
					under(d, "tracing") || strings.HasPrefix(d, "go.opentelemetry.io/") ||
					under(d, "passkey") || under(d, "dnscheck") || strings.HasPrefix(d, "github.com/prometheus/") {
					t.Errorf("the front end %s depends on %s", p.ImportPath, d)
				}
			}
		}
		// Nothing imports cmd.
		for _, d := range p.Imports {
			if under(d, "cmd") {
				t.Errorf("%s imports %s", p.ImportPath, d)
			}
		}
	}
	for _, room := range []string{"core", "web", "store", "mailer", "webhook", "billing", "oauth", "cmd", "metrics", "tracing"} {
		if !rooms[room] {
			t.Errorf("no package in %s/: the test no longer sees the house", room)
		}
	}
}

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sendlater/sendlater/store/postgres/pgtest"
)

const exampleLine = "the site shows example content: stats, testimonials, team, headline, about text (set site.* to replace them, docs/deploy.md)"

// TestStartUpNamesTheExampleContent: a server on the shipped examples says
// so once at start-up; one whose operator replaced them all (live figures,
// no team) says nothing, on both stores (before: invented figures and
// people, silently). The web package's tests check what the page carries.
func TestStartUpNamesTheExampleContent(t *testing.T) {
	srv := startServer(t, t.TempDir())
	if n := strings.Count(srv.logs.String(), exampleLine); n != 1 {
		t.Errorf("the example line %d times in\n%s", n, srv.logs)
	}

	site := `site:
  stats: live
  headline: Letters that wait
  about: We are two people.
  testimonials:
    - {quote: "It reached my sister.", name: Ana Real, role: Nurse}
  team: []
`
	for _, backend := range []string{"bolt", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(site), 0o600); err != nil {
				t.Fatal(err)
			}
			var env []string
			if backend == "postgres" {
				env = pgEnv(pgtest.URL(t))
			}
			srv := startServer(t, dir, env...)
			if strings.Contains(srv.logs.String(), "example content") {
				t.Errorf("every piece replaced, yet:\n%s", srv.logs)
			}
		})
	}

	r := run(t, t.TempDir(), []string{"SENDLATER_SITE_STATS=sometimes"}, "config")
	if r.code == 0 || !strings.Contains(r.stderr, "site.stats must be example, live or off") {
		t.Errorf("a wrong site.stats: %+v", r)
	}
}

// TestSiteKeysAreChecked: a typo under site, a testimonial without a name
// and a team member without one stop start-up naming the key.
func TestSiteKeysAreChecked(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"site:\n  stat: live\n", `unknown key "site.stat"`},
		{"site:\n  stat: live\n", `did you mean "site.stats"?`},
		{"site:\n  testimonials:\n    - {quote: Fine., role: Nurse}\n", "site.testimonials[0] needs a quote and a name"},
		{"site:\n  team:\n    - {role: Founder}\n", "site.team[0].name must not be empty"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := run(t, dir, nil, "config"); r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: %+v, want %q", tt.file, r, tt.want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("site:\n  about: |\n    One.\n\n    Two.\n  team: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, nil, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "site.about = \"One.\\n\\nTwo.\\n\"\n") || !strings.Contains(r.stdout, "site.team = []\n") {
		t.Errorf("sendlater config: %+v", r)
	}
}

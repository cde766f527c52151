package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigTyposStopStartUp: a key of the config file or a SENDLATER_
// variable that sets nothing stops every command that reads the config
// with one line naming it and the key meant, before anything is created.
// (Before, `adress:` left addr at :8080 without a word.)
func TestConfigTyposStopStartUp(t *testing.T) {
	tests := []struct {
		name, file, config string // config: the file's content
		env                []string
		want               string
	}{
		{"file key", "config.yaml", "adress: \"127.0.0.1:18880\"\n", nil,
			`config: unknown key "adress" in config.yaml (did you mean "addr"?)`},
		{"nested file key", "config.yaml", "mail:\n  smtp:\n    hots: smtp.example.com\n", nil,
			`config: unknown key "mail.smtp.hots" in config.yaml (did you mean "mail.smtp.host"?)`},
		{"a section left out", "config.yaml", "smtp:\n  host: smtp.example.com\n", nil,
			`config: unknown key "smtp.host" in config.yaml (did you mean "mail.smtp.host"?)`},
		{"--config file", "sendlater.yaml", "store:\n  drvier: postgres\n", nil,
			`config: unknown key "store.drvier" in sendlater.yaml (did you mean "store.driver"?)`},
		{"nothing near", "config.yaml", "colour: blue\n", nil,
			`config: unknown key "colour" in config.yaml (config.example.yaml lists every key)`},
		{"env var", "", "", []string{"SENDLATER_ADRESS=127.0.0.1:18880"},
			`config: SENDLATER_ADRESS names no setting (did you mean SENDLATER_ADDR?)`},
		{"nested env var", "", "", []string{"SENDLATER_MAIL_SMTP_HOTS=smtp.example.com"},
			`config: SENDLATER_MAIL_SMTP_HOTS names no setting (did you mean SENDLATER_MAIL_SMTP_HOST?)`},
		{"env var of a section", "", "", []string{"SENDLATER_SMTP_HOST=smtp.example.com"},
			`config: SENDLATER_SMTP_HOST names no setting (did you mean SENDLATER_MAIL_SMTP_HOST?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var args []string
			if tt.file != "" {
				if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
				if tt.file != "config.yaml" {
					args = []string{"--config", tt.file}
				}
			}
			for _, cmd := range [][]string{{"config"}, {"users", "list"}, {"send-due"}, {"serve", "--addr", "127.0.0.1:0"}} {
				r := runBriefly(t, dir, tt.env, append(args, cmd...)...)
				if r.code != 1 || r.stderr != "Error: "+tt.want+"\n" || r.stdout != "" {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and the one line\n%s", cmd, r.code, r.stdout, r.stderr, tt.want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
				t.Error("a data directory was made")
			}
		})
	}
}

// runBriefly is run for a command that should stop at once: one that runs
// on (a serve that started) is killed after 20 seconds (exit -1).
func runBriefly(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return runCmd(t, exec.CommandContext(ctx, binary, args...), dir, env)
}

// TestConfigAcceptsItsExampleAndTheProjectsVariables: every key of
// config.example.yaml is known, and the SENDLATER_ variables of the tests,
// the build and shell completion are not taken for typos.
func TestConfigAcceptsItsExampleAndTheProjectsVariables(t *testing.T) {
	dir := t.TempDir()
	example, err := filepath.Abs("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, nil, "--config", example, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "mail.smtp.host = \n") {
		t.Fatalf("config.example.yaml: %+v", r)
	}
	// The settings themselves, nested and with underscores in a name.
	env := []string{"SENDLATER_MAIL_SMTP_POOL_SIZE=2", "SENDLATER_AUTH_PROVIDERS_GITHUB_CLIENT_SECRET_FILE=",
		"SENDLATER_PAGE_VIEWS_ENABLED=false", "SENDLATER_STRIPE_PRICES_PRO=",
		// Not settings: what the project's tests, build and completion read.
		"SENDLATER_TEST_POSTGRES_URL=postgres://localhost/test", "SENDLATER_REQUIRE_POSTGRES=1",
		"SENDLATER_REQUIRE_BROWSER=1", "SENDLATER_REQUIRE_TERMINAL=1", "SENDLATER_REQUIRE_STRIPE=1",
		"SENDLATER_REQUIRE_RELEASE=1", "SENDLATER_SKIP_LOG=/tmp/skipped", "SENDLATER_UI_BUILT=1",
		"SENDLATER_STRIPE_MOCK=/usr/bin/stripe-mock", "SENDLATER_TEST_CRASH_STORE=/tmp/x.db",
		"SENDLATER_ACTIVE_HELP=0", "SENDLATER_COMPLETION_DESCRIPTIONS=0"}
	if r := run(t, dir, env, "config"); r.code != 0 || !strings.Contains(r.stdout, "mail.smtp.pool_size = 2\n") {
		t.Fatalf("the project's variables: %+v", r)
	}
}

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigPrecedenceAndMasking(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("app_name: FromFile\nbase_url: https://file.example\nmail:\n  smtp:\n    password: hunter2\n    port: 2525\n"), 0o600)
	r := run(t, dir, []string{"SENDLATER_APP_NAME=FromEnv", "SENDLATER_MAIL_SMTP_HOST=smtp.example",
		"SENDLATER_STORE_URL=postgres://sendlater:hunter2@db/sendlater"}, "config", "--data-dir", "/tmp/flagdir")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, want := range []string{
		"app_name = FromEnv",              // env beats file
		"base_url = https://file.example", // file beats default
		"mail.smtp.port = 2525",           // nested file keys
		"mail.smtp.host = smtp.example",   // nested env keys
		"data_dir = /tmp/flagdir",         // flags beat all
		"mail.smtp.password = ********",   // secrets masked
		"store.url = ********",            // a URL may hold a password
		"addr = :8080",                    // defaults
		"limits.ipv6_prefix = 64",
	} {
		if !strings.Contains(r.stdout, want+"\n") {
			t.Errorf("config output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "hunter2") {
		t.Error("a secret was printed")
	}

	secret := filepath.Join(dir, "smtp-password")
	os.WriteFile(secret, []byte("from-a-file\n"), 0o600)
	r = run(t, dir, []string{"SENDLATER_MAIL_SMTP_PASSWORD_FILE=" + secret}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "mail.smtp.password = ********") {
		t.Errorf("password_file: %+v", r)
	}
}

func TestInvalidConfigNamesTheKey(t *testing.T) {
	tests := []struct {
		env  string
		want string
	}{
		{"SENDLATER_MAIL_SMTP_TLS=ssl", "mail.smtp.tls must be one of none, starttls, tls"},
		{"SENDLATER_BASE_URL=localhost:8080", "base_url must be an absolute http(s) URL"},
		{"SENDLATER_ADDR=8080", "addr must be host:port"},
		{"SENDLATER_MAIL_FROM=nobody", "mail.from must be an email address"},
		{"SENDLATER_MAIL_SMTP_PORT=70000", "mail.smtp.port must be between 1 and 65535"},
		{"SENDLATER_MAIL_SMTP_PORT=abc", "mail.smtp.port"},
		{"SENDLATER_ENCRYPTION_KEY=short", "encryption_key"},
		{"SENDLATER_MAIL_SMTP_PASSWORD_FILE=/nonexistent/file", "mail.smtp.password_file"},
		{"SENDLATER_SCHEDULER_LEASE=100ms", "scheduler.lease must be between 1s and 24h"},
		{"SENDLATER_STORE_URL_FILE=/nonexistent/file", "store.url_file"},
		{"SENDLATER_LIMITS_IPV6_PREFIX=16", "limits.ipv6_prefix must be between 32 and 128"},
		{"SENDLATER_LIMITS_IPV6_PREFIX=129", "limits.ipv6_prefix must be between 32 and 128"},
		{"SENDLATER_LIMITS_IPV6_PREFIX=slash64", "limits.ipv6_prefix"},
		{"SENDLATER_MAIL_DNS_SERVER=dns://1.1.1.1", "mail.dns_server must be empty (the system's resolver), off, or"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		r := run(t, dir, []string{tt.env}, "users", "list")
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want it to say %q", tt.env, r.code, r.stderr, tt.want)
		}
	}
}

func TestWrongEncryptionKeyIsAClearError(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)
	r := run(t, dir, []string{"SENDLATER_ENCRYPTION_KEY=" + strings.Repeat("ab", 32)}, "messages", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "key") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "Letter") {
		t.Fatal("printed data with the wrong key")
	}
}

func TestTrustedProxiesAreValidated(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, []string{"SENDLATER_TRUSTED_PROXIES=10.0.0.0/8,127.0.0.1"}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "trusted_proxies = [10.0.0.0/8 127.0.0.1]") {
		t.Fatalf("%+v", r)
	}
	r = run(t, dir, []string{"SENDLATER_TRUSTED_PROXIES=nginx"}, "config")
	if r.code == 0 || !strings.Contains(r.stderr, "trusted_proxies must be IP addresses or CIDR ranges") {
		t.Fatalf("%+v", r)
	}
}

// sealed.link_valid_for is a duration between a day and ten years; a bad
// value names the key and the rule, and the default is a year.
func TestSealedLinkValidForIsValidated(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, nil, "config"); r.code != 0 || !strings.Contains(r.stdout, "sealed.link_valid_for = 8760h0m0s\n") {
		t.Fatalf("the default: %+v", r)
	}
	if r := run(t, dir, []string{"SENDLATER_SEALED_LINK_VALID_FOR=720h"}, "config"); r.code != 0 || !strings.Contains(r.stdout, "sealed.link_valid_for = 720h0m0s\n") {
		t.Fatalf("30 days: %+v", r)
	}
	for _, v := range []string{"1h", "100000h", "-8760h"} {
		r := run(t, dir, []string{"SENDLATER_SEALED_LINK_VALID_FOR=" + v}, "users", "list")
		if r.code == 0 || !strings.Contains(r.stderr, "sealed.link_valid_for must be a duration between 24h and 87600h") {
			t.Errorf("%s: exit %d, stderr %q", v, r.code, r.stderr)
		}
	}
	r := run(t, dir, []string{"SENDLATER_SEALED_LINK_VALID_FOR=a year"}, "users", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "sealed.link_valid_for") {
		t.Errorf("a year: exit %d, stderr %q", r.code, r.stderr)
	}
}

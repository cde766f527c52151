package main

import (
	"fmt"
	"net"
)

// MetricsConfig is the Prometheus endpoint (metrics/): off unless addr is
// set, on a listener of its own, never the public one; a scraper proves a
// bearer token or a basic-auth user and password when one is set.
type MetricsConfig struct {
	Addr         string `mapstructure:"addr"`
	Token        string `mapstructure:"token" secret:"true"`
	TokenFile    string `mapstructure:"token_file"`
	Username     string `mapstructure:"username"`
	Password     string `mapstructure:"password" secret:"true"`
	PasswordFile string `mapstructure:"password_file"`
	// Pprof serves Go's profiles (/debug/pprof/) on the same listener,
	// behind the same credentials: off by default.
	Pprof bool `mapstructure:"pprof"`
}

// metricsDefaults are the metrics keys, all off.
func metricsDefaults() map[string]any {
	d := map[string]any{}
	for _, k := range []string{"addr", "token", "token_file", "username", "password", "password_file"} {
		d["metrics."+k] = ""
	}
	d["metrics.pprof"] = false
	return d
}

// readMetricsSecrets resolves metrics.token_file and metrics.password_file.
func (c *Config) readMetricsSecrets() error {
	if err := readSecretFile(&c.Metrics.Token, c.Metrics.TokenFile, "metrics.token_file"); err != nil {
		return err
	}
	return readSecretFile(&c.Metrics.Password, c.Metrics.PasswordFile, "metrics.password_file")
}

// minMetricsToken is the shortest bearer token metrics.token takes.
const minMetricsToken = 16

// validateMetrics checks the metrics keys: a host:port that is not the
// public server's port, and one kind of credentials, complete.
func (c *Config) validateMetrics(bad func(key, rule string, got any) error) error {
	m := &c.Metrics
	if m.Addr == "" {
		if m.Token != "" || m.Username != "" || m.Password != "" || m.Pprof {
			return fmt.Errorf("config: metrics.token, metrics.username, metrics.password and metrics.pprof need metrics.addr (the endpoint is off without it)")
		}
		return nil
	}
	_, port, err := net.SplitHostPort(m.Addr)
	if err != nil || !validPort(port, true) {
		return bad("metrics.addr", "must be host:port with a port, e.g. 127.0.0.1:9090", m.Addr)
	}
	if _, public, _ := net.SplitHostPort(c.Addr); public == port && port != "0" {
		return bad("metrics.addr", "must not use the public server's port (addr): metrics are never served publicly", m.Addr)
	}
	if m.Token != "" && (m.Username != "" || m.Password != "") {
		return fmt.Errorf("config: metrics.token and metrics.username/password are two ways to protect the endpoint: set one")
	}
	if m.Token != "" && len(m.Token) < minMetricsToken {
		return fmt.Errorf("config: metrics.token must be at least %d characters (got %d)", minMetricsToken, len(m.Token))
	}
	if (m.Username == "") != (m.Password == "") {
		return fmt.Errorf("config: metrics.username and metrics.password must be set together")
	}
	if host, _, _ := net.SplitHostPort(m.Addr); m.Pprof && m.Token == "" && m.Username == "" && !isLoopback(host) {
		// Profiles show the code's stacks and what it holds: a
		// scraper's credentials, or a loopback address, always.
		return bad("metrics.pprof", "needs metrics.token or metrics.username and metrics.password when metrics.addr is not a loopback address", m.Addr)
	}
	return nil
}

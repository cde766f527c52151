package main

import (
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/seal"
)

// Config is the effective configuration: defaults, then the config file, then
// SENDLATER_* environment variables, then flags.
type Config struct {
	Addr              string     `mapstructure:"addr"`
	DataDir           string     `mapstructure:"data_dir"`
	BaseURL           string     `mapstructure:"base_url"`
	AppName           string     `mapstructure:"app_name"`
	Site              SiteConfig `mapstructure:"site"`
	TrustedProxies    []string   `mapstructure:"trusted_proxies"`
	EncryptionKey     string     `mapstructure:"encryption_key" secret:"true"`
	EncryptionKeyFile string     `mapstructure:"encryption_key_file"`
	Store             struct {
		Driver   string `mapstructure:"driver"`
		URL      string `mapstructure:"url" secret:"true"`
		URLFile  string `mapstructure:"url_file"`
		PoolSize int    `mapstructure:"pool_size"`
	} `mapstructure:"store"`
	Limits struct {
		IPv6Prefix int `mapstructure:"ipv6_prefix"`
	} `mapstructure:"limits"`
	Log struct {
		Level  string `mapstructure:"level"`
		Format string `mapstructure:"format"`
	} `mapstructure:"log"`
	Mail    MailConfig `mapstructure:"mail"`
	Contact struct {
		To string `mapstructure:"to"`
	} `mapstructure:"contact"`
	Operator struct {
		Email string `mapstructure:"email"`
	} `mapstructure:"operator"`
	Stripe    StripeConfig `mapstructure:"stripe"`
	Auth      AuthConfig   `mapstructure:"auth"`
	Scheduler struct {
		Interval     time.Duration   `mapstructure:"interval"`
		Reminders    []time.Duration `mapstructure:"reminders"`
		Concurrency  int             `mapstructure:"concurrency"`
		Lease        time.Duration   `mapstructure:"lease"`
		HeartbeatURL string          `mapstructure:"heartbeat_url"`
	} `mapstructure:"scheduler"`
	Webhooks struct {
		AllowPrivate bool `mapstructure:"allow_private"`
	} `mapstructure:"webhooks"`
	Sealed struct {
		LinkValidFor time.Duration `mapstructure:"link_valid_for"`
	} `mapstructure:"sealed"`
	Analytics ThirdPartyConfig `mapstructure:"analytics"`
	Chat      ThirdPartyConfig `mapstructure:"chat"`
	PageViews PageViewConfig   `mapstructure:"page_views"`
	Metrics   MetricsConfig    `mapstructure:"metrics"`
	Tracing   TracingConfig    `mapstructure:"tracing"`
	// Attachments are messages' files: where kept, each plan's limits.
	Attachments AttachmentsConfig `mapstructure:"attachments"`

	// reminders is scheduler.reminders checked and ordered: the one value
	// the store and the delivery pass both read.
	reminders core.Reminders
	// baseURLDerived: base_url was not set and BaseURL is deriveBaseURL's.
	baseURLDerived bool
}

// defaults lists every key with its default value; keys must be known to
// viper for SENDLATER_* variables to reach them.
var defaults = map[string]any{
	"addr":                    ":8080",
	"data_dir":                "./data",
	"base_url":                "", // derived from addr (deriveBaseURL)
	"app_name":                "Sendlater",
	"trusted_proxies":         []string{},
	"limits.ipv6_prefix":      core.DefaultIPv6Prefix,
	"encryption_key":          "",
	"encryption_key_file":     "",
	"store.driver":            "bolt",
	"store.url":               "",
	"store.url_file":          "",
	"store.pool_size":         16,
	"log.level":               "info",
	"log.format":              "text",
	"contact.to":              "",
	"operator.email":          "",
	"scheduler.interval":      "5s",
	"scheduler.reminders":     []string{"240h"},
	"scheduler.concurrency":   8,
	"scheduler.lease":         "30s",
	"scheduler.heartbeat_url": "",
	"webhooks.allow_private":  false,
	"sealed.link_valid_for":   "8760h",
}

// newViper returns a viper with the defaults and the environment bound.
func newViper() *viper.Viper {
	v := viper.New()
	for k, val := range defaults {
		v.SetDefault(k, val)
	}
	for k, val := range integrationDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range mailDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range publicDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range siteDefaults() {
		v.SetDefault(k, val)
	}
	v.SetEnvPrefix("SENDLATER")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	return v
}

// loadConfig reads the config file (the --config path, else ./config.yaml when
// present), resolves *_file secrets and validates the result.
func loadConfig(v *viper.Viper, file string) (*Config, error) {
	c, unknown, err := readConfig(v, file)
	if len(unknown) > 0 {
		return nil, unknown[0]
	}
	return c, err
}

// readConfig is loadConfig that tells the unknown keys and variables apart
// (unknown, each an error naming one) from a config that could not be made
// (err): with only unknown keys the config is returned too, as it would be
// without them (`sendlater doctor` reports them and goes on).
func readConfig(v *viper.Viper, file string) (_ *Config, unknown []error, err error) {
	if file == "" {
		if _, err := os.Stat("config.yaml"); err == nil {
			file = "config.yaml"
		}
	}
	known := newKnownKeys()
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return nil, nil, fmt.Errorf("config file %s: %w", file, err)
		}
		if unknown, err = known.fileKeyErrors(file); err != nil {
			return nil, nil, err
		}
	}
	unknown = append(unknown, known.envErrors(os.Environ())...)
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return nil, unknown, fmt.Errorf("config: %w", err)
	}
	if err := readSecretFile(&c.Mail.SMTP.Password, c.Mail.SMTP.PasswordFile, "mail.smtp.password_file"); err != nil {
		return nil, unknown, err
	}
	if err := readSecretFile(&c.Mail.Postmark.WebhookPassword, c.Mail.Postmark.WebhookPasswordFile, "mail.postmark.webhook_password_file"); err != nil {
		return nil, unknown, err
	}
	if err := readSecretFile(&c.Store.URL, c.Store.URLFile, "store.url_file"); err != nil {
		return nil, unknown, err
	}
	if err := c.readIntegrationSecrets(); err != nil {
		return nil, unknown, err
	}
	if err := c.validate(); err != nil {
		return nil, unknown, err
	}
	return &c, unknown, nil
}

func (c *Config) validate() error {
	bad := func(key, rule string, got any) error {
		return fmt.Errorf("config: %s %s (got %q)", key, rule, fmt.Sprint(got))
	}
	if _, port, err := net.SplitHostPort(c.Addr); err != nil || !validPort(port, true) {
		return bad("addr", "must be host:port, e.g. :8080 or 127.0.0.1:8080", c.Addr)
	}
	if c.EncryptionKey != "" {
		// Checked here, not when the store opens: a bad key is a
		// configuration error whether or not there is a store.
		if _, err := seal.ParseKey(c.EncryptionKey); err != nil {
			return fmt.Errorf("config: encryption_key: %s", core.ErrorMessageOrText(err))
		}
	}
	if c.DataDir == "" {
		return bad("data_dir", "must not be empty", c.DataDir)
	}
	if c.BaseURL == "" {
		c.BaseURL, c.baseURLDerived = deriveBaseURL(c.Addr), true
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return bad("base_url", "must be an absolute http(s) URL without a path, e.g. https://sendlater.example", c.BaseURL)
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	if _, err := c.trustedProxies(); err != nil {
		return bad("trusted_proxies", "must be IP addresses or CIDR ranges, e.g. 127.0.0.1 or 10.0.0.0/8", c.TrustedProxies)
	}
	if p := c.Limits.IPv6Prefix; p < core.MinIPv6Prefix || p > core.MaxIPv6Prefix {
		return bad("limits.ipv6_prefix", fmt.Sprintf("must be between %d and %d, the leading bits of an IPv6 address that the limits count as one client, e.g. %d",
			core.MinIPv6Prefix, core.MaxIPv6Prefix, core.DefaultIPv6Prefix), c.Limits.IPv6Prefix)
	}
	if c.AppName == "" {
		return bad("app_name", "must not be empty", c.AppName)
	}
	if err := c.validateMail(bad); err != nil {
		return err
	}
	for key, addr := range map[string]string{"contact.to": c.Contact.To, "operator.email": c.Operator.Email} {
		if _, err := mail.ParseAddress(addr); addr != "" && err != nil {
			return bad(key, "must be an email address", addr)
		}
	}
	if _, ok := drivers[c.Store.Driver]; !ok {
		return bad("store.driver", "must be one of "+strings.Join(driverNames(), ", "), c.Store.Driver)
	}
	if c.Store.PoolSize < 1 || c.Store.PoolSize > 1000 {
		return bad("store.pool_size", "must be between 1 and 1000", c.Store.PoolSize)
	}
	if err := c.validateScheduler(bad); err != nil {
		return err
	}
	if v := c.Sealed.LinkValidFor; v < core.MinOpenValidity || v > core.MaxOpenValidity {
		return bad("sealed.link_valid_for", "must be a duration between 24h and 87600h (ten years), how long after delivery a sealed message's link opens, e.g. 8760h for a year", v)
	}
	if err := c.validateIntegrations(bad); err != nil {
		return err
	}
	if err := c.validateAttachments(bad); err != nil {
		return err
	}
	if err := c.validateSite(bad); err != nil {
		return err
	}
	if err := c.validatePublic(bad); err != nil {
		return err
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, c.Log.Level) {
		return bad("log.level", "must be one of debug, info, warn, error", c.Log.Level)
	}
	if !slices.Contains([]string{"text", "json"}, c.Log.Format) {
		return bad("log.format", "must be text or json", c.Log.Format)
	}
	return nil
}

// validateScheduler checks the scheduler keys and orders the reminder
// offsets (core.NewReminders).
func (c *Config) validateScheduler(bad func(key, rule string, got any) error) error {
	sc := &c.Scheduler
	if sc.Interval < time.Second || sc.Interval > time.Hour {
		return bad("scheduler.interval", "must be between 1s and 1h, e.g. 5s", sc.Interval)
	}
	reminders, err := core.NewReminders(sc.Reminders)
	if err != nil {
		return fmt.Errorf("config: scheduler.reminders: %s (got %q)", core.ErrorMessageOrText(err), fmt.Sprint(sc.Reminders))
	}
	c.reminders, sc.Reminders = reminders, reminders
	if sc.Concurrency < 1 || sc.Concurrency > 256 {
		return bad("scheduler.concurrency", "must be between 1 and 256", sc.Concurrency)
	}
	if sc.Lease < time.Second || sc.Lease > 24*time.Hour {
		return bad("scheduler.lease", "must be between 1s and 24h, e.g. 30s", sc.Lease)
	}
	if sc.HeartbeatURL != "" {
		if u, err := url.Parse(sc.HeartbeatURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("scheduler.heartbeat_url", "must be an absolute http(s) URL", sc.HeartbeatURL)
		}
	}
	return nil
}

// deriveBaseURL is the base URL of a server listening on addr (validated
// host:port) when base_url is not set: http://HOST:PORT, with localhost
// for an address that listens everywhere (":8080", "0.0.0.0:8080",
// "[::]:8080"), so that email links reach the server on this machine at
// least. Behind a proxy base_url must be set (README "Configuration").
func deriveBaseURL(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	if a, err := netip.ParseAddr(host); host == "" || (err == nil && a.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func validPort(s string, zeroOK bool) bool {
	p, err := strconv.Atoi(s)
	return err == nil && p <= 65535 && (p > 0 || (zeroOK && p == 0))
}

// trustedProxies parses trusted_proxies: addresses and CIDR ranges.
func (c *Config) trustedProxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.TrustedProxies {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, err
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// prices maps the configured Stripe price ids to their plans.
func (c *Config) prices() core.PriceMap {
	pm := core.PriceMap{}
	if c.Stripe.Prices.Pro != "" {
		pm[c.Stripe.Prices.Pro] = core.PlanPro
	}
	if c.Stripe.Prices.Business != "" {
		pm[c.Stripe.Prices.Business] = core.PlanBusiness
	}
	return pm
}

// storePath, socketPath, keyPath and outboxDir are the files in the data dir.
func (c *Config) storePath() string  { return filepath.Join(c.DataDir, "sendlater.db") }
func (c *Config) socketPath() string { return filepath.Join(c.DataDir, "sendlater.sock") }
func (c *Config) keyPath() string    { return filepath.Join(c.DataDir, "sendlater.key") }
func (c *Config) outboxDir() string  { return filepath.Join(c.DataDir, "outbox") }

// masked returns the config as key -> value with secrets masked, for
// `sendlater config`.
func (c *Config) masked() [][2]string {
	var out [][2]string
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			key := prefix + f.Tag.Get("mapstructure")
			if f.Type.Kind() == reflect.Struct {
				walk(key+".", v.Field(i))
				continue
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.Pointer { // site.testimonials, site.team: unset is the examples
				if fv.IsNil() {
					out = append(out, [2]string{key, ""})
					continue
				}
				fv = fv.Elem()
			}
			val := fmt.Sprint(fv.Interface())
			if strings.Contains(val, "\n") { // site.about: one line a key
				val = strconv.Quote(val)
			}
			if f.Tag.Get("secret") == "true" && val != "" {
				val = "********"
			}
			out = append(out, [2]string{key, val})
		}
	}
	walk("", reflect.ValueOf(*c))
	return out
}

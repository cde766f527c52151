package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/sendlater/sendlater/web"
)

// ThirdPartyConfig is one optional third-party script of the web app
// (analytics.*, chat.*): off until script_url is set. The SPA loads
// script_url; the Content-Security-Policy then allows its origin and the
// extra hosts (the service's API or WebSocket origins) and nothing else.
type ThirdPartyConfig struct {
	ScriptURL string   `mapstructure:"script_url"`
	WebsiteID string   `mapstructure:"website_id"`
	Hosts     []string `mapstructure:"hosts"`
}

// PageViewConfig is the first-party page-view counter (docs/api.md "Page
// views"): on by default, with or without analytics.
type PageViewConfig struct {
	Enabled bool `mapstructure:"enabled"`
}

// publicDefaults are the defaults of the analytics, chat and page_views keys.
func publicDefaults() map[string]any {
	d := map[string]any{"page_views.enabled": true}
	for _, p := range []string{"analytics", "chat"} {
		d[p+".script_url"] = ""
		d[p+".website_id"] = ""
		d[p+".hosts"] = []string{}
	}
	return d
}

// validatePublic checks analytics.* and chat.*: each off, or a script on
// https with its website id, and extra hosts that are bare https or wss
// origins (no path, no credentials), since each widens the CSP.
func (c *Config) validatePublic(bad func(key, rule string, got any) error) error {
	for _, p := range []struct {
		key string
		cfg *ThirdPartyConfig
	}{{"analytics", &c.Analytics}, {"chat", &c.Chat}} {
		s := p.cfg
		if s.ScriptURL == "" {
			if s.WebsiteID != "" || len(s.Hosts) > 0 {
				return fmt.Errorf("config: %s.website_id and %s.hosts need %s.script_url (%s is off without it)", p.key, p.key, p.key, p.key)
			}
			continue
		}
		u, err := url.Parse(s.ScriptURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Path == "" || u.Path == "/" {
			return bad(p.key+".script_url", "must be an https URL of a script, e.g. https://stats.example.com/script.js", s.ScriptURL)
		}
		if s.WebsiteID == "" || strings.ContainsAny(s.WebsiteID, " \t\r\n\"'<>") || len(s.WebsiteID) > 200 {
			return bad(p.key+".website_id", "must be the service's id of this site (no spaces or quotes, at most 200 characters), needed with "+p.key+".script_url", s.WebsiteID)
		}
		for i, h := range s.Hosts {
			origin, ok := cspOrigin(h)
			if !ok {
				return bad(fmt.Sprintf("%s.hosts[%d]", p.key, i), "must be an https:// or wss:// origin without a path, e.g. https://api.example.com", h)
			}
			s.Hosts[i] = origin
		}
	}
	return nil
}

// cspOrigin is s as a CSP source: scheme and host (and port) of an https
// or wss URL without path, query or credentials.
func cspOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "wss") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(u.Host, "*;, ") {
		return "", false
	}
	return u.Scheme + "://" + u.Host, true
}

// publicSettings are the web app's settings from the config: its optional
// third-party scripts, nil when off.
func (c *Config) publicSettings() web.PublicSettings {
	p := web.PublicSettings{Site: c.site()}
	if a := c.Analytics; a.ScriptURL != "" {
		p.Analytics = &web.Analytics{ScriptURL: a.ScriptURL, WebsiteID: a.WebsiteID, Hosts: a.Hosts}
	}
	if ch := c.Chat; ch.ScriptURL != "" {
		p.Chat = &web.Chat{ScriptURL: ch.ScriptURL, WebsiteID: ch.WebsiteID, Hosts: ch.Hosts}
	}
	return p
}

// logPublic says at start-up which of the web app's optional scripts are
// on, and whether page views are counted.
func (a *app) logPublic() {
	for _, p := range []struct {
		key string
		cfg ThirdPartyConfig
	}{{"analytics", a.cfg.Analytics}, {"chat", a.cfg.Chat}} {
		if p.cfg.ScriptURL != "" {
			a.log.Info(p.key+" on", "script", p.cfg.ScriptURL)
		}
	}
	if a.cfg.PageViews.Enabled {
		a.log.Info("page views counted (first-party, no cookie, no personal data): `sendlater stats`; page_views.enabled: false switches it off")
	} else {
		a.log.Info("page views not counted (page_views.enabled: false)")
	}
}

package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// PublicSettings are what the SPA is told by the server that serves it: the
// optional third-party scripts (SPEC.md sections 4 and 7), all off unless
// configured (cmd fills them from analytics.* and chat.*). The server writes
// them into each page as JSON (a data block, not a script) and widens the
// Content-Security-Policy for exactly the hosts they name.
type PublicSettings struct {
	Analytics *Analytics `json:"analytics,omitempty"`
	Chat      *Chat      `json:"chat,omitempty"`
	// PageViews tells the SPA to send its page views to the first-party
	// counter (POST /api/pageviews). The server sets it when it counts
	// (Server.PageViews), whatever cmd put here.
	PageViews bool `json:"pageViews,omitempty"`
	// SocialSignIn tells the first script that sign-in and sign-up show
	// provider buttons, which only the app draws: those pages load it at
	// once. The server sets it from its providers, whatever cmd put here.
	SocialSignIn bool `json:"socialSignIn,omitempty"`
	// Passkeys tells the SPA that the server does passkeys (its base_url
	// can be a relying party): the sign-in page's button and autofill and
	// Settings → Security's list. The server sets it, as PageViews.
	Passkeys bool `json:"passkeys,omitempty"`
	// Site is the operator's content of the public pages (site.go); nil:
	// the SPA's examples.
	Site *Site `json:"site,omitempty"`
}

// Analytics is an Umami-compatible web analytics service: the SPA loads
// ScriptURL (tracking off) and sends it the signed-in user's uid and a page
// view on load and on every route change.
type Analytics struct {
	ScriptURL string `json:"scriptUrl"` // https://.../script.js
	WebsiteID string `json:"websiteId"`
	// Hosts are further origins the service uses, beside ScriptURL's.
	Hosts []string `json:"-"`
}

// Chat is a Crisp-compatible chat widget: the SPA loads ScriptURL, gives it
// the signed-in user's email and name, and resets its session on sign-out.
type Chat struct {
	ScriptURL string   `json:"scriptUrl"` // https://client.crisp.chat/l.js
	WebsiteID string   `json:"websiteId"`
	Hosts     []string `json:"-"`
}

// thirdParties reports whether a third-party service is configured.
func (p PublicSettings) thirdParties() bool { return p.Analytics != nil || p.Chat != nil }

// origins are the origins of the configured services, for the CSP.
func (p PublicSettings) origins() []string {
	var out []string
	add := func(script string, hosts []string) {
		if u, err := url.Parse(script); err == nil && u.Scheme == "https" && u.Host != "" {
			out = append(out, "https://"+u.Host)
		}
		out = append(out, hosts...)
	}
	if p.Analytics != nil {
		add(p.Analytics.ScriptURL, p.Analytics.Hosts)
	}
	if p.Chat != nil {
		add(p.Chat.ScriptURL, p.Chat.Hosts)
	}
	return out
}

// settingsTag is the data block the SPA reads its settings from
// (src/lib/public-settings.ts); none when nothing is configured.
func (p PublicSettings) settingsTag() string {
	if !p.thirdParties() && !p.PageViews && !p.SocialSignIn && !p.Passkeys && p.Site == nil {
		return ""
	}
	b, _ := json.Marshal(p) // plain strings: cannot fail; Marshal escapes <, > and & for HTML
	return `<script type="application/json" id="public-settings">` + string(b) + "</script>\n"
}

// widenedCSP is the base policy with the services' origins allowed to load
// scripts, styles, fonts and frames and to be connected to.
func widenedCSP(base string, origins []string) string {
	if len(origins) == 0 {
		return base
	}
	extra := " " + strings.Join(origins, " ")
	directives := strings.Split(base, "; ")
	seen := map[string]bool{}
	for i, d := range directives {
		name, _, _ := strings.Cut(d, " ")
		switch name {
		case "script-src", "style-src", "connect-src", "font-src", "frame-src":
			directives[i] += extra
			seen[name] = true
		}
	}
	if !seen["frame-src"] {
		directives = append(directives, "frame-src 'self'"+extra)
	}
	return strings.Join(directives, "; ")
}

// withPublicSettingsCSP replaces the policy withRequest set by the widened
// one when third-party services are configured.
func (s *Server) withPublicSettingsCSP(next http.Handler) http.Handler {
	if !s.Public.thirdParties() {
		return next
	}
	csp := widenedCSP(contentSecurityPolicy, s.Public.origins())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		next.ServeHTTP(w, r)
	})
}

package web

import (
	"net/http"
	"net/url"

	"github.com/sendlater/sendlater/core"
)

// crossOriginProtection refuses state-changing requests that a browser sends
// from another origin (CSRF): the refresh cookie is SameSite=Strict already,
// and this covers every cookie endpoint and anything added later. Requests
// without Sec-Fetch-Site and Origin (the CLI, the TUI, scripts, webhooks)
// are not browser requests and pass. The base URL's origin is trusted, for
// proxies that rewrite the Host header.
func (s *Server) crossOriginProtection() *http.CrossOriginProtection {
	c := http.NewCrossOriginProtection()
	if u, err := url.Parse(s.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		if err := c.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			s.logger().Warn("base_url is not a trusted origin", "base_url", s.BaseURL, "err", err)
		}
	}
	c.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, core.Errorf(core.ECrossOrigin, "Cross-origin requests are not allowed."))
	}))
	return c
}

package web

import (
	"net/http"
	"time"

	"github.com/sendlater/sendlater/core"
)

// Social sign-in (docs/identity.md). The sign-in page opens a popup at GET
// /api/auth/oauth/{provider}/start. A signed-in user links a provider (POST
// /api/me/providers/{provider}) or signs in again with one (POST
// /api/auth/reauth/{provider}) with the bearer token, and opens the popup at
// the url the reply holds. Either way the trip's state waits in a cookie
// scoped to the provider's callback, which ends in the popup page
// (popup.go).

// flow is the server's SocialFlow: SocialOff until one is wired.
func (s *Server) flow() core.SocialFlow {
	if s.SocialFlow == nil {
		return core.SocialOff{}
	}
	return s.SocialFlow
}

// heldCookie keeps the profile of a provider that gave no email address
// until the person types one (POST /api/auth/oauth/{provider}/email).
const heldCookie = "sl_oauth_held"

const oauthPath = "/api/auth/oauth/"

func stateCookie(provider string) (name, path string) {
	return "sl_oauth_" + provider, oauthPath + provider + "/"
}

// oauthCookie holds value for core.OAuthStateTTL; "" deletes it. It is Lax:
// the provider sends the browser back with a top-level GET from its own
// site, which a Strict cookie would miss.
func (s *Server) oauthCookie(name, path, value string) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: true, Secure: s.secure(), SameSite: http.SameSiteLaxMode}
	if value == "" {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(core.OAuthStateTTL / time.Second)
	}
	return c
}

// URLJSON is an address to send the browser to.
type URLJSON struct {
	URL string `json:"url"`
}

// ProviderJSON is a configured social sign-in provider.
type ProviderJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (s *Server) handleProviders(w http.ResponseWriter, r *http.Request) {
	writeData(w, http.StatusOK, each(s.flow().Providers(), func(id string) ProviderJSON {
		return ProviderJSON{ID: id, Name: core.ProviderName(id)}
	}))
}

// handleOAuthStart sends the popup to the provider to sign in.
func (s *Server) handleOAuthStart(w http.ResponseWriter, r *http.Request) {
	s.startOAuth(w, r, core.SocialIntent{}, func(url string) { http.Redirect(w, r, url, http.StatusFound) })
}

// handleOAuthStartFor starts, for the signed-in user, a provider sign-in of
// kind (core.IntentLink, core.IntentReauth) and answers the address to open
// the popup at.
func (s *Server) handleOAuthStartFor(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		intent, err := s.Social.Intent(r.Context(), kind)
		if err != nil {
			writeError(w, r, err)
			return
		}
		s.startOAuth(w, r, intent, func(url string) { writeData(w, http.StatusOK, URLJSON{URL: url}) })
	}
}

func (s *Server) startOAuth(w http.ResponseWriter, r *http.Request, intent core.SocialIntent, send func(url string)) {
	provider := r.PathValue("provider")
	url, kept, err := s.flow().Start(provider, intent)
	if err != nil {
		writeError(w, r, err)
		return
	}
	name, path := stateCookie(provider)
	http.SetCookie(w, s.oauthCookie(name, path, kept))
	send(url)
}

// handleOAuthCallback finishes the trip through the provider: the kept
// state (its cookie is deleted whatever the outcome), the provider's answer,
// then what it was for. The popup page tells the opener how it went.
func (s *Server) handleOAuthCallback(w http.ResponseWriter, r *http.Request) {
	provider := r.PathValue("provider")
	name, path := stateCookie(provider)
	kept := ""
	if c, err := r.Cookie(name); err == nil {
		kept = c.Value
	}
	http.SetCookie(w, s.oauthCookie(name, path, ""))
	q := r.URL.Query()
	res, err := s.flow().Finish(r.Context(), provider, kept, core.ProviderAnswer{State: q.Get("state"), Code: q.Get("code"), Error: q.Get("error")})
	intent := ""
	var sf *core.SecondFactorChallenge
	if err == nil {
		intent = res.Intent.Kind
		sf, err = s.applySocial(w, r, res)
	}
	s.writePopup(w, r, provider, intent, sf, err)
}

// applySocial does what the provider's sign-in was for: link it or sign in
// again for the session that started it, else sign in (setting the session
// cookies) or, when the provider gave no email, hold the profile until the
// person types one. For an account with a second factor it returns the
// challenge instead: no session exists yet.
func (s *Server) applySocial(w http.ResponseWriter, r *http.Request, res *core.SocialResult) (*core.SecondFactorChallenge, error) {
	ctx := r.Context()
	switch res.Intent.Kind {
	case core.IntentLink, core.IntentReauth:
		ctx = core.WithIdentity(ctx, &core.Identity{UserID: res.Intent.UserID, SessionID: res.Intent.SessionID})
		if res.Intent.Kind == core.IntentReauth {
			return nil, s.Social.Reauth(ctx, res.Profile)
		}
		_, err := s.Social.Link(ctx, res.Profile)
		return nil, err
	}
	t, err := s.Social.SignIn(ctx, res.Profile, authClient(r))
	switch {
	case core.ErrorCode(err) == core.EEmailRequired:
		held, herr := s.flow().Hold(res.Profile)
		if herr != nil {
			return nil, herr
		}
		http.SetCookie(w, s.oauthCookie(heldCookie, oauthPath, held))
		return nil, err
	case err != nil:
		return nil, err
	}
	s.setSessionCookies(w, t)
	return t.SecondFactor, nil
}

// handleOAuthEmail makes the account of a provider that gave no email with
// the address typed; it signs in once that address is confirmed.
func (s *Server) handleOAuthEmail(w http.ResponseWriter, r *http.Request) {
	var req emailRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	held := ""
	if c, err := r.Cookie(heldCookie); err == nil {
		held = c.Value
	}
	p, err := s.flow().Held(r.PathValue("provider"), held)
	if err == nil {
		err = s.Social.SignUpWithEmail(r.Context(), p, req.Email)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	http.SetCookie(w, s.oauthCookie(heldCookie, oauthPath, ""))
	writeData(w, http.StatusCreated, nil)
}

// LinkedAccountJSON is a provider account linked to the signed-in user;
// confirmed is false until the email code of a provider that gave no email
// is used.
type LinkedAccountJSON struct {
	Provider  string `json:"provider"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Confirmed bool   `json:"confirmed"`
	LinkedAt  int64  `json:"linkedAt"`
}

func (s *Server) handleLinkedAccounts(w http.ResponseWriter, r *http.Request) {
	links, err := s.Social.LinkedAccounts(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(links, NewLinkedAccountJSON))
}

// NewLinkedAccountJSON is l on the wire.
func NewLinkedAccountJSON(l *core.ProviderLink) LinkedAccountJSON {
	return LinkedAccountJSON{
		Provider: l.Provider, Name: core.ProviderName(l.Provider), Email: l.Email,
		Confirmed: l.PendingCodeHash == "", LinkedAt: millis(l.CreatedAt),
	}
}

func (s *Server) handleUnlink(w http.ResponseWriter, r *http.Request) {
	su, err := s.Social.Unlink(r.Context(), r.PathValue("provider"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewSessionUserJSON(su))
}

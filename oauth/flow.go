package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
	"golang.org/x/oauth2"
)

// StateTTL is how long a started sign-in may take.
const StateTTL = 10 * time.Minute

var errNonce = errors.New("the ID token's nonce is not the one sent")

// Flow is the browser side of a social sign-in: Start sends the browser to
// the provider with a fresh state, nonce and PKCE verifier, kept in a
// short-lived signed cookie; Callback checks the provider's answer against
// it, once, and reads the profile.
type Flow struct {
	Providers map[string]*Provider
	Key       []byte // HMAC key of the state cookie, at least 32 bytes: core.DeriveKey(master, core.PurposeOAuthState)
	Secure    bool   // cookies only over HTTPS (an https base URL)
	Clock     core.Clock
	Logger    *slog.Logger

	mu   sync.Mutex
	used map[string]time.Time // states already called back, until they expire
}

// Intent is what a sign-in is for, carried through the provider in the
// cookie: signing in (zero), or linking to the signed-in user.
type Intent struct {
	LinkUserID    string `json:"u,omitempty"`
	LinkSessionID string `json:"s,omitempty"`
}

// state is the cookie's content.
type state struct {
	Provider string `json:"p"`
	State    string `json:"st"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Expires  int64  `json:"e"`
	Intent   Intent `json:"i"`
}

// Result is a checked callback: who the provider says signed in, and why.
type Result struct {
	Profile core.ProviderProfile
	Intent  Intent
}

func cookieName(provider string) string { return "sl_oauth_" + provider }

func (f *Flow) provider(id string) (*Provider, error) {
	p, ok := f.Providers[id]
	if !ok {
		return nil, core.Errorf(core.EProviderNotConfigured, "Sign-in with %s is not set up on this server.", core.ProviderName(id))
	}
	return p, nil
}

// Start sets the state cookie for a sign-in with provider and returns the
// provider's address to send the browser to.
func (f *Flow) Start(w http.ResponseWriter, provider string, intent Intent) (string, error) {
	p, err := f.provider(provider)
	if err != nil {
		return "", err
	}
	if len(f.Key) < 32 {
		return "", core.Errorf(core.EInternal, "the OAuth state key must be at least 32 bytes")
	}
	st := state{
		Provider: provider, State: core.NewSecret(), Nonce: core.NewSecret(), Verifier: oauth2.GenerateVerifier(),
		Expires: f.Clock.Now().Add(StateTTL).Unix(), Intent: intent,
	}
	payload, _ := json.Marshal(st) // strings and a number: cannot fail
	value := base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(f.mac(payload))
	http.SetCookie(w, &http.Cookie{
		Name: cookieName(provider), Value: value, Path: "/api/auth/oauth/" + provider + "/",
		MaxAge: int(StateTTL / time.Second), HttpOnly: true, Secure: f.Secure,
		// The provider sends the browser back with a top-level GET from its
		// own site: Strict would leave the cookie behind.
		SameSite: http.SameSiteLaxMode,
	})
	return p.authCodeURL(st.State, st.Nonce, st.Verifier), nil
}

func (f *Flow) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, f.Key)
	h.Write(payload)
	return h.Sum(nil)
}

func errState() error {
	return core.Errorf(core.EInvalidState, "This sign-in could not be verified: it expired, was already used or did not start here. Please try again.")
}

// readState returns the cookie's state when its signature holds and it has
// not expired.
func (f *Flow) readState(r *http.Request, provider string) (*state, error) {
	c, err := r.Cookie(cookieName(provider))
	if err != nil {
		return nil, errState()
	}
	enc, sig, ok := strings.Cut(c.Value, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(enc)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, f.mac(payload)) {
		return nil, errState()
	}
	var st state
	if json.Unmarshal(payload, &st) != nil || st.Provider != provider || f.Clock.Now().Unix() >= st.Expires {
		return nil, errState()
	}
	return &st, nil
}

// use marks a state called back; false when it was already.
func (f *Flow) use(st *state) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.Clock.Now()
	for s, exp := range f.used {
		if now.After(exp) {
			delete(f.used, s)
		}
	}
	if _, seen := f.used[st.State]; seen {
		return false
	}
	if f.used == nil {
		f.used = map[string]time.Time{}
	}
	f.used[st.State] = time.Unix(st.Expires, 0)
	return true
}

var providerErrorCode = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Callback checks the provider's redirect back: the signed cookie, the state
// it holds (once), then the provider's answer; it exchanges the code with
// the PKCE verifier and reads the profile (for OpenID Connect, checking the
// nonce). The cookie is deleted whatever the outcome.
func (f *Flow) Callback(ctx context.Context, w http.ResponseWriter, r *http.Request, provider string) (*Result, error) {
	p, err := f.provider(provider)
	if err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName(provider), Path: "/api/auth/oauth/" + provider + "/", MaxAge: -1,
		HttpOnly: true, Secure: f.Secure, SameSite: http.SameSiteLaxMode,
	})
	st, err := f.readState(r, provider)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(st.State)) != 1 || !f.use(st) {
		return nil, errState()
	}
	if e := q.Get("error"); e != "" {
		if e == "access_denied" {
			return nil, core.Errorf(core.EUserCancelled, "You cancelled the sign-in with %s.", p.Name())
		}
		if !providerErrorCode.MatchString(e) {
			e = "unknown"
		}
		return nil, core.Errorf(core.EProviderFailed, "%s could not sign you in (%s). Please try again.", p.Name(), e)
	}
	code := q.Get("code")
	if code == "" {
		return nil, core.Errorf(core.EProviderFailed, "%s sent no sign-in code. Please try again.", p.Name())
	}
	prof, err := p.exchange(ctx, code, st.Verifier, st.Nonce)
	if err != nil {
		f.log().Warn("social sign-in failed", "provider", provider, "err", err)
		if errors.Is(err, errNonce) {
			return nil, errState()
		}
		return nil, core.Errorf(core.EProviderFailed, "%s could not confirm the sign-in. Please try again.", p.Name())
	}
	return &Result{Profile: prof, Intent: st.Intent}, nil
}

func (f *Flow) log() *slog.Logger {
	if f.Logger != nil {
		return f.Logger
	}
	return slog.Default()
}

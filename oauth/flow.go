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
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
	"golang.org/x/oauth2"
)

var errNonce = errors.New("the ID token's nonce is not the one sent")

// Flow is core.SocialFlow: Start sends the browser to the provider with a
// fresh state, nonce and PKCE verifier, returned signed for the browser to
// keep (the web layer puts it in a short-lived cookie); Finish checks the
// provider's answer against it, once, and reads the profile.
type Flow struct {
	Logger *slog.Logger

	providers map[string]*Provider
	key       []byte
	clock     core.Clock

	mu    sync.Mutex
	used  map[string]bool // states already finished, until they expire
	order []finished      // the same, oldest first
}

// finished is a state that came back, remembered until it expires.
type finished struct {
	state   string
	expires time.Time
}

// maxFinished bounds the states remembered: beyond it the oldest are
// forgotten early (a replay of one would still need its code, which the
// provider takes once).
const maxFinished = 100_000

var _ core.SocialFlow = (*Flow)(nil)

// NewFlow returns the flow of the configured providers. key signs what the
// browser keeps: core.DeriveKey(master, core.PurposeOAuthState), at least
// 32 bytes.
func NewFlow(key []byte, clock core.Clock, providers ...*Provider) (*Flow, error) {
	if len(key) < 32 {
		return nil, errors.New("oauth: the state key must be at least 32 bytes")
	}
	f := &Flow{providers: map[string]*Provider{}, key: key, clock: clock}
	for _, p := range providers {
		f.providers[p.ID] = p
	}
	return f, nil
}

// state is what a started sign-in keeps in the browser.
type state struct {
	State    string            `json:"st"`
	Nonce    string            `json:"n"`
	Verifier string            `json:"v"`
	Intent   core.SocialIntent `json:"i"`
}

// sealed is the signed envelope of what the browser keeps.
type sealed struct {
	Kind     string          `json:"k"` // "state" or "profile"
	Provider string          `json:"p"`
	Expires  int64           `json:"e"`
	Data     json.RawMessage `json:"d"`
}

// Providers lists the configured providers in the order the sign-in page
// shows them.
func (f *Flow) Providers() []string {
	var out []string
	for _, id := range core.SocialProviders {
		if _, ok := f.providers[id]; ok {
			out = append(out, id)
		}
	}
	return out
}

func (f *Flow) provider(id string) (*Provider, error) {
	p, ok := f.providers[id]
	if !ok {
		return nil, core.ProviderNotConfigured(id)
	}
	return p, nil
}

// Start returns the provider's address for a sign-in and the signed state
// the browser keeps until the provider sends it back.
func (f *Flow) Start(provider string, intent core.SocialIntent) (string, string, error) {
	p, err := f.provider(provider)
	if err != nil {
		return "", "", err
	}
	st := state{State: core.NewSecret(), Nonce: core.NewSecret(), Verifier: oauth2.GenerateVerifier(), Intent: intent}
	kept, err := f.seal("state", provider, st)
	if err != nil {
		return "", "", err
	}
	return p.authCodeURL(st.State, st.Nonce, st.Verifier), kept, nil
}

// seal signs v for the browser to keep for core.OAuthStateTTL.
func (f *Flow) seal(kind, provider string, v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	payload, _ := json.Marshal(sealed{Kind: kind, Provider: provider, Expires: f.clock.Now().Add(core.OAuthStateTTL).Unix(), Data: data})
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(f.mac(payload)), nil
}

// open reads into v what seal signed, when the signature holds, it is of
// kind and provider, and it has not expired.
func (f *Flow) open(kind, provider, value string, v any) bool {
	enc, sig, ok := strings.Cut(value, ".")
	payload, err1 := base64.RawURLEncoding.Strict().DecodeString(enc)
	mac, err2 := base64.RawURLEncoding.Strict().DecodeString(sig)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, f.mac(payload)) {
		return false
	}
	var s sealed
	return json.Unmarshal(payload, &s) == nil && s.Kind == kind && s.Provider == provider &&
		f.clock.Now().Unix() < s.Expires && json.Unmarshal(s.Data, v) == nil
}

func (f *Flow) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, f.key)
	h.Write(payload)
	return h.Sum(nil)
}

func errState() error {
	return core.Errorf(core.EInvalidState, "This sign-in could not be verified: it expired, was already used or did not start here. Please try again.")
}

// use marks a state finished; false when it was already. The states expire
// in the order they came, so forgetting them is a walk from the front.
func (f *Flow) use(st *state) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	for len(f.order) > 0 && (now.After(f.order[0].expires) || len(f.order) >= maxFinished) {
		delete(f.used, f.order[0].state)
		f.order = f.order[1:]
	}
	if f.used[st.State] {
		return false
	}
	if f.used == nil {
		f.used = map[string]bool{}
	}
	f.used[st.State] = true
	f.order = append(f.order, finished{st.State, now.Add(core.OAuthStateTTL)})
	return true
}

var providerErrorCode = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Finish checks the provider's answer: the kept state's signature, its
// state (once), then the answer itself; it exchanges the code with the PKCE
// verifier and reads the profile (for OpenID Connect, checking the nonce).
func (f *Flow) Finish(ctx context.Context, provider, kept string, a core.ProviderAnswer) (*core.SocialResult, error) {
	p, err := f.provider(provider)
	if err != nil {
		return nil, err
	}
	var st state
	if !f.open("state", provider, kept, &st) ||
		subtle.ConstantTimeCompare([]byte(a.State), []byte(st.State)) != 1 || !f.use(&st) {
		return nil, errState()
	}
	if a.Error != "" {
		if a.Error == "access_denied" {
			return nil, core.Errorf(core.EUserCancelled, "You cancelled the sign-in with %s.", p.Name())
		}
		e := a.Error
		if !providerErrorCode.MatchString(e) {
			e = "unknown"
		}
		return nil, core.Errorf(core.EProviderFailed, "%s could not sign you in (%s). Please try again.", p.Name(), e)
	}
	if a.Code == "" {
		return nil, core.Errorf(core.EProviderFailed, "%s sent no sign-in code. Please try again.", p.Name())
	}
	prof, err := p.exchange(ctx, a.Code, st.Verifier, st.Nonce)
	if err != nil {
		f.log().Warn("social sign-in failed", "provider", provider, "err", err)
		if errors.Is(err, errNonce) {
			return nil, errState()
		}
		return nil, core.Errorf(core.EProviderFailed, "%s could not confirm the sign-in. Please try again.", p.Name())
	}
	return &core.SocialResult{Profile: prof, Intent: st.Intent}, nil
}

// Hold seals a provider's profile for the browser to send back with the
// email address the provider did not give.
func (f *Flow) Hold(p core.ProviderProfile) (string, error) {
	return f.seal("profile", p.Provider, p)
}

// Held opens a profile Hold sealed, while it is fresh.
func (f *Flow) Held(provider, value string) (core.ProviderProfile, error) {
	var p core.ProviderProfile
	if !f.open("profile", provider, value, &p) || p.Provider != provider {
		return core.ProviderProfile{}, errState()
	}
	return p, nil
}

func (f *Flow) log() *slog.Logger {
	if f.Logger != nil {
		return f.Logger
	}
	return slog.Default()
}
